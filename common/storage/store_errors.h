// Error texts shared by the Store implementations, so both say the same thing about the same mistake.
#ifndef NOVELTYGRID_COMMON_STORAGE_STORE_ERRORS_H_
#define NOVELTYGRID_COMMON_STORAGE_STORE_ERRORS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace noveltygrid::storage_internal {

// A key for an error message: C-escaped (keys are binary), quoted, cut after 80 bytes.
std::string QuoteKey(std::string_view key);

// FailedPrecondition for using a key as the wrong kind (Redis WRONGTYPE): names the command, the key
// and the store (`where`, from Store::Describe()); `detail` is the backend's own explanation.
absl::Status WrongTypeError(std::string_view command, std::string_view key, std::string_view where,
                            std::string_view detail);

}  // namespace noveltygrid::storage_internal

#endif  // NOVELTYGRID_COMMON_STORAGE_STORE_ERRORS_H_
