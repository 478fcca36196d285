// app/cli/options.h — command-line options of attention-cli: "--name value" pairs and "--flag"
// switches, checked against what each command declares so a typo is an error, not ignored.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace aw {

struct OptionSpec {
  std::set<std::string> with_value;  // names without "--"
  std::set<std::string> switches;
};

class CliOptions {
 public:
  // Parses argv[first..] for `command`; throws aw::Error("attention-cli <command>: …") on unknown
  // options, a missing value or a stray argument.
  CliOptions(const std::string& command, const OptionSpec& spec, int argc, char** argv, int first);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool flag(const std::string& name) const { return switches_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  std::string require(const std::string& name) const;           // error when absent
  std::vector<std::string> all(const std::string& name) const;   // a repeated option, in order
  int64_t get_int(const std::string& name, int64_t fallback, int64_t minimum) const;

 private:
  std::string command_;
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> switches_;
};

}  // namespace aw
