// Transport settings both roles share: the message size limit and keepalive, set deliberately.
#ifndef NOVELTYGRID_PROTO_LIMITS_H_
#define NOVELTYGRID_PROTO_LIMITS_H_

#include <cstddef>

namespace noveltygrid {

// A unit of ~1000 answers, or a lease with a resumed checkpoint of 3072-d embeddings, fits easily.
inline constexpr int kMaxMessageBytes = 64 << 20;

// Clients ping an idle connection every 20 s (the server accepts pings every 10 s), so a vanished
// peer is noticed within ~30 s even without traffic.
inline constexpr int kClientKeepaliveMs = 20'000;
inline constexpr int kServerKeepaliveMs = 30'000;
inline constexpr int kKeepaliveTimeoutMs = 10'000;
inline constexpr int kMinPingIntervalMs = 10'000;

}  // namespace noveltygrid

#endif  // NOVELTYGRID_PROTO_LIMITS_H_
