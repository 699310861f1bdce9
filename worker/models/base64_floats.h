// Decoding the base64 float32 embeddings of OpenAI-compatible replies (encoding_format: base64)
// straight into a vector, 32 characters a step where the CPU has AVX2 (checked once at run time).
#ifndef NOVELTYGRID_WORKER_MODELS_BASE64_FLOATS_H_
#define NOVELTYGRID_WORKER_MODELS_BASE64_FLOATS_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/embedding.h"

namespace noveltygrid {

// Canonical base64 (padded, no whitespace, zero padding bits) of whole little-endian float32 values
// (as every provider sends), decoded into `out`. False -- `out` then unspecified -- for anything else,
// which callers hand to absl::Base64Unescape so that its rules decide; on canonical input both agree.
bool DecodeCanonicalBase64Floats(absl::string_view text, Embedding* out);

namespace base64_internal {
// Decodes the groups of 4 characters at s[0, n) (n a multiple of 4, no padding) into 3 bytes each at
// `out`; false at the first character outside the alphabet. The portable kernel and the AVX2 one give
// the same bytes and the same answer (tested); the AVX2 one needs CpuHasAvx2().
bool DecodeGroupsPortable(const unsigned char* s, size_t n, unsigned char* out);
bool DecodeGroupsAvx2(const unsigned char* s, size_t n, unsigned char* out);
bool CpuHasAvx2();
}  // namespace base64_internal

}  // namespace noveltygrid

#endif  // NOVELTYGRID_WORKER_MODELS_BASE64_FLOATS_H_
