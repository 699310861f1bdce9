// AppendUnique: appends a value to a list unless the list holds it already (first-seen order).
#ifndef NOVELTYGRID_COMMON_APPEND_UNIQUE_H_
#define NOVELTYGRID_COMMON_APPEND_UNIQUE_H_

#include <algorithm>
#include <vector>

namespace noveltygrid {

template <typename T>
void AppendUnique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace noveltygrid

#endif  // NOVELTYGRID_COMMON_APPEND_UNIQUE_H_
