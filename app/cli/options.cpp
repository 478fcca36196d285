// app/cli/options.cpp — see options.h.
#include "app/cli/options.h"

#include "models/errors.h"
#include "models/parse_number.h"

namespace aw {

CliOptions::CliOptions(const std::string& command, const OptionSpec& spec, int argc, char** argv, int first)
    : command_(command) {
  for (int i = first; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument.rfind("--", 0) != 0 || argument.size() == 2)
      throw Error("attention-cli " + command + ": unexpected argument '" + argument + "'");
    auto name = argument.substr(2);
    std::string value;
    bool inline_value = false;
    if (const auto equals = name.find('='); equals != std::string::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
      inline_value = true;
    }
    if (spec.switches.count(name)) {
      if (inline_value) throw Error("attention-cli " + command + ": --" + name + " takes no value");
      switches_.insert(name);
    } else if (spec.with_value.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argc) throw Error("attention-cli " + command + ": --" + name + " needs a value");
        value = argv[++i];
      }
      values_[name].push_back(value);
    } else {
      throw Error("attention-cli " + command + ": unknown option --" + name + " (see attention-cli help)");
    }
  }
}

std::string CliOptions::get(const std::string& name, const std::string& fallback) const {
  const auto found = values_.find(name);
  return found == values_.end() ? fallback : found->second.back();
}

std::string CliOptions::require(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) throw Error("attention-cli " + command_ + ": --" + name + " is required");
  return found->second.back();
}

std::vector<std::string> CliOptions::all(const std::string& name) const {
  const auto found = values_.find(name);
  return found == values_.end() ? std::vector<std::string>{} : found->second;
}

int64_t CliOptions::get_int(const std::string& name, int64_t fallback, int64_t minimum) const {
  if (!has(name)) return fallback;
  const auto text = get(name, "");
  int64_t value = 0;
  if (!parse_integer(text, value))
    throw Error("attention-cli " + command_ + ": --" + name + " expects an integer, got '" + text + "'");
  if (value < minimum)
    throw Error("attention-cli " + command_ + ": --" + name + " must be at least " + std::to_string(minimum) +
                ", got " + text);
  return value;
}

}  // namespace aw
