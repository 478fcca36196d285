// models/checkpoint/sharded_weights.cpp — see sharded_weights.h.
#include "models/checkpoint/sharded_weights.h"

#include "models/errors.h"
#include "models/json_input.h"

#include <filesystem>

namespace aw {
namespace fs = std::filesystem;

std::shared_ptr<const ShardedWeights> ShardedWeights::open(const std::string& index_path) {
  const auto index = read_untrusted_json(index_path);
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    fail_in_file(index_path, "has no \"weight_map\" object (tensor name → shard file)");
  const auto& weight_map = index["weight_map"];
  if (weight_map.empty()) fail_in_file(index_path, "\"weight_map\" names no tensor");

  auto weights = std::shared_ptr<ShardedWeights>(new ShardedWeights());
  weights->index_path_ = index_path;
  const auto folder = fs::path(index_path).parent_path();
  std::map<std::string, size_t> shard_number;  // file name → index into shards_
  for (const auto& [tensor, file] : weight_map.items()) {
    if (!file.is_string())
      fail_in_file(index_path, "tensor " + quoted_excerpt(tensor) + " maps to " + json_excerpt(file) + ", not a file name");
    const auto name = file.get<std::string>();
    // A shard is a file beside the index: no folders, no way out of the checkpoint.
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      fail_in_file(index_path, "shard " + quoted_excerpt(name) + " is not a file name in this folder");
    auto found = shard_number.find(name);
    if (found == shard_number.end()) {
      const auto path = (folder / name).string();
      if (!fs::exists(path))
        fail_in_file(index_path, "names shard " + quoted_excerpt(name) + ", which is not in " +
                                     (folder.empty() ? std::string(".") : folder.string()));
      weights->shards_.push_back(SafetensorsFile::open(path));
      found = shard_number.emplace(name, weights->shards_.size() - 1).first;
    }
    const auto& shard = *weights->shards_[found->second];
    if (!shard.contains(tensor))
      fail_in_file(shard.path(), "has no tensor " + quoted_excerpt(tensor) + ", which " +
                                     fs::path(index_path).filename().string() + " puts in it");
    weights->shard_of_[tensor] = found->second;
  }
  for (const auto& shard : weights->shards_)
    for (const auto& tensor : shard->names())
      if (!weights->shard_of_.count(tensor))
        fail_in_file(shard->path(), "holds tensor " + quoted_excerpt(tensor) + ", which " +
                                        fs::path(index_path).filename().string() + " does not list");
  return weights;
}

const SafetensorsFile& ShardedWeights::shard(const std::string& name) const {
  const auto found = shard_of_.find(name);
  if (found == shard_of_.end()) fail_in_file(index_path_, "no tensor " + quoted_excerpt(name));
  return *shards_[found->second];
}

const TensorRecord& ShardedWeights::record(const std::string& name) const { return shard(name).record(name); }
torch::Tensor ShardedWeights::tensor(const std::string& name) const { return shard(name).tensor(name); }
const std::string& ShardedWeights::path_of(const std::string& name) const { return shard(name).path(); }

std::vector<std::string> ShardedWeights::names() const {
  std::vector<std::string> names;
  for (const auto& entry : shard_of_) names.push_back(entry.first);
  return names;  // a map's keys: sorted
}

std::shared_ptr<const TensorSource> open_checkpoint_weights(const std::string& dir) {
  const auto single = fs::path(dir) / "model.safetensors";
  if (fs::exists(single)) return SafetensorsFile::open(single.string());
  const auto index = fs::path(dir) / "model.safetensors.index.json";
  if (fs::exists(index)) return ShardedWeights::open(index.string());
  fail_in_file(dir, "no model.safetensors or model.safetensors.index.json in this folder");
}

}  // namespace aw
