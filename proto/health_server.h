// A grpc.health.v1 Check service with a settable status, for processes that serve nothing else (a
// worker's --health-listen). grpc++'s default health service cannot run alone on a callback server.
#ifndef NOVELTYGRID_PROTO_HEALTH_SERVER_H_
#define NOVELTYGRID_PROTO_HEALTH_SERVER_H_

#include <atomic>

#include "grpc/health/v1/health.grpc.pb.h"

namespace noveltygrid {

class HealthService final : public grpc::health::v1::Health::CallbackService {
 public:
  void SetServing(bool serving) { serving_.store(serving); }

  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  grpc::health::v1::HealthCheckResponse* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (!request->service().empty()) {
      reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "only the server's overall health (\"\") is served"));
      return reactor;
    }
    response->set_status(serving_.load() ? grpc::health::v1::HealthCheckResponse::SERVING
                                         : grpc::health::v1::HealthCheckResponse::NOT_SERVING);
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  std::atomic<bool> serving_{true};
};

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_HEALTH_SERVER_H_
