#include "common/yaml_expansion.h"

#include <sstream>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/eventhandler.h"

namespace noveltygrid {
namespace {

// Counts the values of one document as a walk of its tree would meet them: an alias adds the size of
// the node it names, known once that node has ended. The count stops at the first error.
class ExpansionCounter : public YAML::EventHandler {
 public:
  explicit ExpansionCounter(int64_t max_values) : max_values_(max_values) {}

  std::optional<YamlExpansionError>& error() { return error_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    Leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto size = sizes_.find(anchor);
    if (size == sizes_.end()) {  // still open: the alias is inside the node it names
      Fail(mark, "an alias refers to a map or list it is part of (a cycle no reader could leave)");
      return;
    }
    Add(mark, size->second);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct OpenNode {
    YAML::anchor_t anchor;
    int64_t start;  // the count before this node
  };

  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    Add(mark, 1);
    if (anchor != YAML::NullAnchor) sizes_[anchor] = 1;
  }
  void Open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    open_.push_back({anchor, total_});
    Add(mark, 1);
  }
  void Close() {
    const OpenNode node = open_.back();
    open_.pop_back();
    if (node.anchor != YAML::NullAnchor) sizes_[node.anchor] = total_ - node.start;
  }
  // Sizes never pass the limit (the count stops there), so the sum cannot overflow.
  void Add(const YAML::Mark& mark, int64_t values) {
    if (error_.has_value()) return;
    total_ += values;
    if (total_ > max_values_) {
      Fail(mark, absl::StrCat("with its aliases (*name) expanded the document holds more than ", max_values_,
                              " values (a config holds a few hundred; is it an alias bomb?)"));
    }
  }
  void Fail(const YAML::Mark& mark, std::string what) {
    if (!error_.has_value()) error_ = YamlExpansionError{mark, std::move(what)};
  }

  const int64_t max_values_;
  int64_t total_ = 0;
  std::vector<OpenNode> open_;
  absl::flat_hash_map<YAML::anchor_t, int64_t> sizes_;  // anchors of nodes that have ended
  std::optional<YamlExpansionError> error_;
};

}  // namespace

std::optional<YamlExpansionError> CheckYamlExpansion(const std::string& text, int64_t max_values) {
  std::istringstream in(text);
  ExpansionCounter counter(max_values);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(counter);
  } catch (const YAML::Exception& e) {
    return YamlExpansionError{e.mark, absl::StrCat("invalid YAML (", e.msg, ")")};
  }
  return std::move(counter.error());
}

}  // namespace noveltygrid
