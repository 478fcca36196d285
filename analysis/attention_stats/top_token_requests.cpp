// analysis/attention_stats/top_token_requests.cpp — the sentence files of the top-tokens analysis (see top_tokens.h).
// A file of its own: it is a parser of outside input, fuzzed alone (fuzz/fuzz_sentence_file.cpp).
#include "analysis/attention_stats/top_tokens.h"

#include "models/errors.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace aw {

std::vector<TopTokensRequest> read_top_token_requests(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::vector<TopTokensRequest> requests;
  size_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    require_line_length(path, line_number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    TopTokensRequest request;
    const auto tab = line.find('\t');
    request.text = line.substr(0, tab);
    if (request.text.find_first_not_of(" \t") == std::string::npos)
      throw Error(path + ":" + std::to_string(line_number) + ": no sentence before the TAB");
    if (tab != std::string::npos) {
      const auto target = line.substr(tab + 1);
      char* end = nullptr;
      errno = 0;
      const long long value = std::strtoll(target.c_str(), &end, 10);
      if (target.empty() || *end != '\0' || value < 1 || errno == ERANGE)
        throw Error(path + ":" + std::to_string(line_number) + ": target " + quoted_excerpt(target) +
                    " is not a token position ≥ 1");
      request.target = value;
    }
    requests.push_back(request);
  }
  if (requests.empty()) fail_in_file(path, "holds no sentences");
  return requests;
}

}  // namespace aw
