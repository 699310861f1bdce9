#include "coordinator/metrics/rpc_timing.h"

#include <string>

#include "google/protobuf/descriptor.h"
#include "noveltygrid/v1/coordinator.grpc.pb.h"

namespace noveltygrid {

const std::vector<double>& RpcTiming::Buckets() {
  static const std::vector<double> buckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.04,
                                              0.05,   0.075, 0.1,   0.25,  0.5,  1,    2.5,  10};
  return buckets;
}

namespace {

// A histogram without labels, registered in `registry` under `name`, on RpcTiming's buckets.
prometheus::Histogram* Unlabelled(prometheus::Registry& registry, const std::string& name, const std::string& help) {
  return &prometheus::BuildHistogram().Name(name).Help(help).Register(registry).Add({}, RpcTiming::Buckets());
}

}  // namespace

RpcTiming::RpcTiming() {
  commit_group_ = Unlabelled(*registry_, "noveltygrid_commit_group_seconds",
                             "The committers' groups: each from taking the queued commit calls to their answers "
                             "being ready.");
  commit_store_ = Unlabelled(*registry_, "noveltygrid_commit_store_seconds",
                             "The commit log's part of the committers' groups: each write of committed units "
                             "(serialised, then a journal fdatasync or a Redis round trip).");
  auto& family = prometheus::BuildHistogram()
                     .Name("noveltygrid_rpc_duration_seconds")
                     .Help("Time from a call reaching the coordinator's handler to its answer, by method.")
                     .Register(*registry_);
  // Every method of the service, from its descriptor: a method added to the proto has its histogram.
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(v1::Coordinator::service_full_name());
  if (service == nullptr) return;  // not expected: the generated code registers it (Of() then answers nullptr)
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string& method = service->method(i)->name();
    by_method_[method] = &family.Add({{"method", method}}, Buckets());
  }
}

prometheus::Histogram* RpcTiming::Of(absl::string_view method) const {
  const auto it = by_method_.find(method);
  return it == by_method_.end() ? nullptr : it->second;
}

}  // namespace noveltygrid
