#include "common/noveltybench/partition.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace noveltygrid::noveltybench {
namespace {

// str.split() separators in the ASCII range.
bool IsPythonSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f);
}

constexpr size_t kShortTextWords = 5;

}  // namespace

std::vector<std::string> LowercaseWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsPythonSpace(c)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : ch);
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::optional<bool> ShortTextEquivalence(std::string_view a, std::string_view b) {
  const std::vector<std::string> words_a = LowercaseWords(a);
  const std::vector<std::string> words_b = LowercaseWords(b);
  const size_t max_len = std::max(words_a.size(), words_b.size());
  if (max_len > kShortTextWords) return std::nullopt;
  const std::set<std::string> set_a(words_a.begin(), words_a.end());
  size_t common = 0;
  for (const std::string& w : std::set<std::string>(words_b.begin(), words_b.end())) {
    common += set_a.count(w);
  }
  return common * 2 >= max_len;
}

std::vector<int> GreedyPartitionByIndex(const std::vector<std::string>& generations,
                                        absl::FunctionRef<bool(size_t first, size_t candidate)> same) {
  std::vector<int> partition;
  std::vector<size_t> first_members;  // per class, the index of its first generation
  partition.reserve(generations.size());
  for (size_t i = 0; i < generations.size(); ++i) {
    int joined = -1;
    for (size_t c = 0; c < first_members.size() && joined < 0; ++c) {
      const size_t first = first_members[c];
      const std::optional<bool> short_rule = ShortTextEquivalence(generations[first], generations[i]);
      if (short_rule.has_value() ? *short_rule : same(first, i)) joined = static_cast<int>(c);
    }
    if (joined < 0) {
      joined = static_cast<int>(first_members.size());
      first_members.push_back(i);
    }
    partition.push_back(joined);
  }
  return partition;
}

std::vector<int> GreedyPartition(std::string_view prompt, const std::vector<std::string>& generations,
                                 const Equivalence& equivalence) {
  return GreedyPartitionByIndex(generations, [&](size_t first, size_t candidate) {
    return equivalence.Equivalent(prompt, generations[first], generations[candidate]);
  });
}

bool ShortTextRuleDecidesAll(const std::vector<std::string>& generations) {
  if (generations.size() < 2) return true;
  for (const std::string& g : generations) {
    if (LowercaseWords(g).size() > kShortTextWords) return false;
  }
  return true;
}

absl::Status ValidatePartition(const std::vector<int>& partition) {
  if (partition.empty()) return absl::InvalidArgumentError("partition is empty");
  int next_new = 0;
  for (size_t i = 0; i < partition.size(); ++i) {
    const int p = partition[i];
    if (p < 0 || p > next_new) {
      return absl::InvalidArgumentError(
          absl::StrCat("partition[", i, "] is ", p, "; classes must be numbered 0, 1, ... in order of first appearance",
                       " (expected 0..", next_new, ")"));
    }
    if (p == next_new) ++next_new;
  }
  return absl::OkStatus();
}

std::vector<bool> ClassOpeners(const std::vector<int>& partition) {
  std::vector<bool> openers(partition.size(), false);
  std::set<int> seen;
  for (size_t i = 0; i < partition.size(); ++i) openers[i] = seen.insert(partition[i]).second;
  return openers;
}

int DistinctCount(const std::vector<int>& partition) {
  return static_cast<int>(std::set<int>(partition.begin(), partition.end()).size());
}

}  // namespace noveltygrid::noveltybench
