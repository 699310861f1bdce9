// A small command-line parser for the subcommands: positional arguments, --flag VALUE, --flag=VALUE
// and boolean --flag. Unknown flags are an error naming the flag and listing the known ones.
#ifndef NOVELTYGRID_CLI_ARGS_H_
#define NOVELTYGRID_CLI_ARGS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace noveltygrid::cli {

struct FlagSpec {
  std::string name;        // without dashes: "out"
  std::string value_name;  // "DIR"; empty for a boolean flag
  std::string help;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // boolean flags map to "true"
  bool help = false;

  bool Has(const std::string& name) const { return values.count(name) > 0; }
  // The flag's value, else the environment variable `env` (for values that may hold secrets, such
  // as a Redis URL with a password), else "".
  std::string GetOrEnv(const std::string& name, const char* env) const;
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  absl::StatusOr<long long> GetInt(const std::string& name, long long fallback) const;
};

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags);

// "Usage: noveltygrid USAGE\n\nSUMMARY\n\nFlags:\n  --name VALUE  help\n..."
std::string HelpText(const std::string& usage, const std::string& summary, const std::vector<FlagSpec>& flags);

// What every command does first: parse `args`. Returns them, or nullopt when the command is over, with
// its exit code in `exit`: 0 after printing --help (usage, summary and flags) on stdout, or what
// `usage_error` returns for the parse error's message.
std::optional<ParsedArgs> ParseOrHelp(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags,
                                      const std::string& usage, const std::string& summary,
                                      const std::function<int(const std::string&)>& usage_error, int* exit);

// ParseOrHelp for `noveltygrid COMMAND CONFIG.yaml [flags]`: a flag error, a missing or extra CONFIG.yaml,
// or a missing `required_flag` (when not empty) prints "noveltygrid COMMAND: ..." (with the help for the
// last two) on stderr and ends the command with exit code 2.
std::optional<ParsedArgs> ParseConfigCommand(const std::string& command, const std::vector<std::string>& args,
                                             const std::vector<FlagSpec>& flags, const std::string& usage,
                                             const std::string& summary, int* exit,
                                             const std::string& required_flag = "");

}  // namespace noveltygrid::cli

#endif  // NOVELTYGRID_CLI_ARGS_H_
