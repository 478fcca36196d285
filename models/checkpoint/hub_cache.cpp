// models/checkpoint/hub_cache.cpp — see hub_cache.h.
#include "models/checkpoint/hub_cache.h"

#include "models/errors.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace aw {
namespace {

namespace fs = std::filesystem;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

// "Qwen/Qwen3-0.6B" → "models--Qwen--Qwen3-0.6B", as huggingface_hub names a repository's folder.
std::string repository_folder(const std::string& name) {
  std::string folder = "models--";
  for (const char c : name) folder += c == '/' ? std::string("--") : std::string(1, c);
  return folder;
}

bool is_commit_hash(const std::string& text) {
  return text.size() == 40 && std::all_of(text.begin(), text.end(), [](unsigned char c) {
           return std::isdigit(c) || (c >= 'a' && c <= 'f');
         });
}

std::string download_command(const std::string& name, const std::string& revision) {
  return "hf download " + name + (revision.empty() ? "" : " --revision " + revision);
}

std::string first_line_of(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

// A file of the snapshot that links to a blob not there: an interrupted download.
void check_links(const fs::path& snapshot, const std::string& name, const std::string& revision) {
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(snapshot, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (!it->is_symlink(error) || fs::exists(it->path(), error)) continue;
    throw Error(it->path().string() + ": a link to a missing blob (" + fs::read_symlink(it->path(), error).string() +
                "): the download did not finish; fetch it again with: " + download_command(name, revision));
  }
}

}  // namespace

std::string hub_cache_dir() {
  for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"})
    if (!environment(name).empty()) return environment(name);
  if (!environment("HF_HOME").empty()) return environment("HF_HOME") + "/hub";
  if (!environment("XDG_CACHE_HOME").empty()) return environment("XDG_CACHE_HOME") + "/huggingface/hub";
  return environment("HOME") + "/.cache/huggingface/hub";
}

bool looks_like_hub_name(const std::string& text) {
  if (text.empty() || text.front() == '.' || text.front() == '/' || text.back() == '/') return false;
  if (std::count(text.begin(), text.end(), '/') > 1) return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

std::string resolve_hub_snapshot(const std::string& name, const std::string& revision) {
  const auto wanted = revision.empty() ? std::string("main") : revision;
  const fs::path repository = fs::path(hub_cache_dir()) / repository_folder(name);
  std::error_code error;
  if (!fs::is_directory(repository, error))
    throw Error(name + " is not a folder here, and not in the Hub cache (" + repository.string() +
                " does not exist); fetch it with: " + download_command(name, revision));
  // A branch or tag names its commit in refs/; a commit hash is its snapshot's folder name.
  const auto ref = repository / "refs" / wanted;
  const auto commit = fs::is_regular_file(ref, error) ? first_line_of(ref) : is_commit_hash(wanted) ? wanted : "";
  const auto snapshot = repository / "snapshots" / commit;
  if (commit.empty() || !fs::is_directory(snapshot, error))
    throw Error(name + ": no revision '" + wanted + "' in the Hub cache (" +
                (commit.empty() ? ref.string() + " does not exist" : snapshot.string() + " does not exist") +
                "); fetch it with: " + download_command(name, revision));
  check_links(snapshot, name, revision);
  return snapshot.string();
}

std::string resolve_model_argument(const std::string& argument, const std::string& revision) {
  std::error_code error;
  // A GGUF file is only ever a path; a missing one is not a Hub name (Hub repositories hold them, not are them).
  const bool gguf = argument.size() > 5 && argument.compare(argument.size() - 5, 5, ".gguf") == 0;
  if (gguf && !fs::exists(argument, error)) throw Error(argument + ": no such GGUF file");
  if (fs::exists(argument, error) || !looks_like_hub_name(argument)) {
    if (!revision.empty())
      throw Error("--revision " + revision + " is for a model by its Hub name; " + argument + " is a path");
    return argument;
  }
  return resolve_hub_snapshot(argument, revision);
}

std::vector<CachedModel> cached_models() {
  std::vector<CachedModel> models;
  std::error_code error;
  const std::string prefix = "models--";
  for (auto it = fs::directory_iterator(hub_cache_dir(), error); !error && it != fs::directory_iterator();
       it.increment(error)) {
    const auto folder = it->path().filename().string();
    if (folder.compare(0, prefix.size(), prefix) != 0) continue;
    std::string name = folder.substr(prefix.size());
    const auto separator = name.find("--");
    if (separator != std::string::npos) name.replace(separator, 2, "/");
    try {
      models.push_back({name, resolve_hub_snapshot(name)});
    } catch (const Error&) {  // no main snapshot, or a broken one: not offered
    }
  }
  std::sort(models.begin(), models.end(), [](const CachedModel& a, const CachedModel& b) { return a.name < b.name; });
  return models;
}

}  // namespace aw
