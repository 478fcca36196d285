// models/checkpoint/sharded_weights.h — a checkpoint's weights as Hugging Face stores them: one
// model.safetensors, or shards named by model.safetensors.index.json ({"weight_map": {tensor: file}}),
// each shard memory-mapped. The index must agree with the shards: every tensor it names is in the
// file it names, every tensor of a shard is in the index, and shards are plain file names in the
// folder. Any disagreement is one aw::Error naming the file.
#pragma once

#include "models/checkpoint/safetensors.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace aw {

class ShardedWeights : public TensorSource {
 public:
  // Reads `index_path` and opens every shard it names (relative to the index's folder).
  static std::shared_ptr<const ShardedWeights> open(const std::string& index_path);

  const std::string& description() const override { return index_path_; }
  bool contains(const std::string& name) const override { return shard_of_.count(name) > 0; }
  const TensorRecord& record(const std::string& name) const override;
  std::vector<std::string> names() const override;
  torch::Tensor tensor(const std::string& name) const override;
  const std::string& path_of(const std::string& name) const override;

 private:
  const SafetensorsFile& shard(const std::string& name) const;
  std::string index_path_;
  std::vector<std::shared_ptr<const SafetensorsFile>> shards_;
  std::map<std::string, size_t> shard_of_;  // tensor → index into shards_
};

// The weights of checkpoint folder `dir`: model.safetensors when present, else the sharded form;
// "<dir>: no model.safetensors or model.safetensors.index.json in this folder" when neither is.
std::shared_ptr<const TensorSource> open_checkpoint_weights(const std::string& dir);

}  // namespace aw
