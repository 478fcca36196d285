// models/checkpoint/hub_cache.h — a model by its Hub name ("Qwen/Qwen3-0.6B") found in the local Hugging
// Face cache, laid out as huggingface_hub lays it out and transformers reads it (docs/models.md "A model
// by its Hub name"): <cache>/models--Qwen--Qwen3-0.6B/refs/<branch or tag> holds a commit hash, and
// snapshots/<commit>/ holds the files as links into blobs/. Nothing here reaches the network.
#pragma once

#include <string>
#include <vector>

namespace aw {

// The cache folder, as huggingface_hub finds it: $HF_HUB_CACHE, the older $HUGGINGFACE_HUB_CACHE,
// $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
std::string hub_cache_dir();

// Whether `text` reads as a Hub name ("org/name" or "name": letters, digits, '-', '_', '.', one '/' at
// most, not starting with '.' or '/') rather than a path.
bool looks_like_hub_name(const std::string& text);

// The snapshot folder of `name` at `revision` (empty: "main"; a branch or tag under refs/, or a commit
// hash). Throws aw::Error naming where it looked and the `hf download` command that would fetch it,
// for a name or revision not in the cache, or a snapshot whose files link to missing blobs.
std::string resolve_hub_snapshot(const std::string& name, const std::string& revision = "");

// A --model argument: an existing file or folder as it is, else a Hub name resolved in the cache (a
// `revision` given with a path is refused). A missing "….gguf" is "<path>: no such GGUF file".
std::string resolve_model_argument(const std::string& argument, const std::string& revision = "");

// Every model in the cache with a whole snapshot at refs/main, by name, for a list to choose from.
struct CachedModel {
  std::string name;  // "Qwen/Qwen3-0.6B"
  std::string dir;   // its snapshot folder
};
std::vector<CachedModel> cached_models();

}  // namespace aw
