// The coordinator's unary calls (proto/noveltygrid/v1/coordinator.proto), X(Name) each: the method Name
// takes a v1::NameRequest and fills a v1::NameResponse. The clients (proto/coordinator_client.h and its
// implementations) forward each call the same way, so they are written once over this list. The gRPC
// service (coordinator/service/coordinator_service.h) declares the typed ones over
// NOVELTYGRID_COORDINATOR_TYPED_CALLS and reads Report raw.
#ifndef NOVELTYGRID_PROTO_COORDINATOR_CALLS_H_
#define NOVELTYGRID_PROTO_COORDINATOR_CALLS_H_

#define NOVELTYGRID_COORDINATOR_TYPED_CALLS(X) X(Lease) X(Heartbeat) X(Complete) X(CompleteMany) X(Release) X(Status)
#define NOVELTYGRID_COORDINATOR_CALLS(X) NOVELTYGRID_COORDINATOR_TYPED_CALLS(X) X(Report)

#endif  // NOVELTYGRID_PROTO_COORDINATOR_CALLS_H_
