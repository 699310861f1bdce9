#include "coordinator/metrics/rpc_timing.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "noveltygrid/v1/coordinator.pb.h"

namespace noveltygrid {
namespace {

// Times one call: from its creation (the call has started on the server) to its status being sent.
class TimingInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit TimingInterceptor(prometheus::Histogram* histogram) : histogram_(histogram), start_(absl::Now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      histogram_->Observe(absl::ToDoubleSeconds(absl::Now() - start_));
    }
    methods->Proceed();
  }

 private:
  prometheus::Histogram* const histogram_;
  const absl::Time start_;
};

class TimingFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit TimingFactory(const RpcTiming* timing) : timing_(timing) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    prometheus::Histogram* histogram = timing_->HistogramOf(info->method());
    return histogram == nullptr ? nullptr : new TimingInterceptor(histogram);  // gRPC owns it
  }

 private:
  const RpcTiming* const timing_;
};

}  // namespace

const std::vector<double>& RpcTiming::Buckets() {
  static const std::vector<double> buckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.04,
                                              0.05,   0.075, 0.1,   0.25,  0.5,  1,    2.5,  10};
  return buckets;
}

RpcTiming::RpcTiming() {
  auto& family = prometheus::BuildHistogram()
                     .Name("noveltygrid_rpc_duration_seconds")
                     .Help("Time from a worker's call reaching the coordinator to its answer being sent, by method.")
                     .Register(*registry_);
  // Every method of the service, from its descriptor: a method added to the proto is timed too.
  const google::protobuf::ServiceDescriptor* service = v1::Lease::descriptor()->file()->FindServiceByName("Coordinator");
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* method = service->method(i);
    by_method_[absl::StrCat("/", service->full_name(), "/", method->name())] =
        &family.Add({{"method", method->name()}}, Buckets());
  }
}

std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> RpcTiming::InterceptorCreators() {
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<TimingFactory>(this));
  return creators;
}

prometheus::Histogram* RpcTiming::HistogramOf(absl::string_view method) const {
  const auto it = by_method_.find(method);
  return it == by_method_.end() ? nullptr : it->second;
}

}  // namespace noveltygrid
