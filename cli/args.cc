#include "cli/args.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace noveltygrid::cli {

std::string ParsedArgs::Get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

std::string ParsedArgs::GetOrEnv(const std::string& name, const char* env) const {
  if (Has(name)) return Get(name);
  const char* value = std::getenv(env);
  return value == nullptr ? "" : value;
}

absl::StatusOr<long long> ParsedArgs::GetInt(const std::string& name, long long fallback) const {
  auto it = values.find(name);
  if (it == values.end()) return fallback;
  long long value;
  if (!absl::SimpleAtoi(it->second, &value)) {
    return absl::InvalidArgumentError(absl::StrCat("--", name, " expects an integer, got '", it->second, "'"));
  }
  return value;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags) {
  ParsedArgs parsed;
  auto find = [&](const std::string& name) -> const FlagSpec* {
    for (const FlagSpec& f : flags) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      parsed.help = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--") || arg == "--") {
      parsed.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const FlagSpec* spec = find(name);
    if (spec == nullptr) {
      std::vector<std::string> known;
      for (const FlagSpec& f : flags) known.push_back("--" + f.name);
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, known.empty() ? "" : "; known flags: ", absl::StrJoin(known, ", ")));
    }
    if (spec->value_name.empty()) {
      if (value.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      }
      parsed.values[name] = "true";
      continue;
    }
    if (!value.has_value()) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value (", spec->value_name, ")"));
      }
      value = args[++i];
    }
    parsed.values[name] = *value;
  }
  return parsed;
}

std::string HelpText(const std::string& usage, const std::string& summary, const std::vector<FlagSpec>& flags) {
  std::string text = absl::StrCat("Usage: noveltygrid ", usage, "\n\n", summary, "\n");
  if (!flags.empty()) {
    absl::StrAppend(&text, "\nFlags:\n");
    for (const FlagSpec& f : flags) {
      std::string left = absl::StrCat("--", f.name, f.value_name.empty() ? "" : " ", f.value_name);
      absl::StrAppend(&text, absl::StrFormat("  %-26s %s\n", left, f.help));
    }
  }
  absl::StrAppend(&text, "  --help                     show this help\n");
  return text;
}

std::optional<ParsedArgs> ParseOrHelp(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags,
                                      const std::string& usage, const std::string& summary,
                                      const std::function<int(const std::string&)>& usage_error, int* exit) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, flags);
  if (!parsed.ok()) {
    *exit = usage_error(std::string(parsed.status().message()));
    return std::nullopt;
  }
  if (parsed->help) {
    std::fputs(HelpText(usage, summary, flags).c_str(), stdout);
    *exit = 0;
    return std::nullopt;
  }
  return *std::move(parsed);
}

std::optional<ParsedArgs> ParseConfigCommand(const std::string& command, const std::vector<std::string>& args,
                                             const std::vector<FlagSpec>& flags, const std::string& usage,
                                             const std::string& summary, int* exit, const std::string& required_flag) {
  std::optional<ParsedArgs> parsed = ParseOrHelp(
      args, flags, usage, summary,
      [&command](const std::string& message) {
        std::fprintf(stderr, "noveltygrid %s: %s\n", command.c_str(), message.c_str());
        return 2;
      },
      exit);
  if (!parsed) return std::nullopt;
  std::string problem;
  if (parsed->positional.size() != 1) {
    problem = "expected exactly one CONFIG.yaml";
  } else if (!required_flag.empty() && !parsed->Has(required_flag)) {
    problem = absl::StrCat("--", required_flag, " is required");
  }
  if (problem.empty()) return parsed;
  std::fprintf(stderr, "noveltygrid %s: %s\n\n%s", command.c_str(), problem.c_str(),
               HelpText(usage, summary, flags).c_str());
  *exit = 2;
  return std::nullopt;
}

}  // namespace noveltygrid::cli
