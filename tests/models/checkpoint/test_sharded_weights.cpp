// tests/models/checkpoint/test_sharded_weights.cpp — checkpoints split into shards with
// model.safetensors.index.json (models/checkpoint/sharded_weights.h): the same parameters as one file, and
// each disagreement between index and shards with its exact line.
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/checkpoint/sharded_weights.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

using test::error_of;
using test::TempDir;

// A tiny checkpoint in `dir` whose model.safetensors is split into `shards` files (tensors dealt
// round-robin in name order) with an index; returns the index's weight map.
nlohmann::json write_sharded(const TempDir& dir, int shards) {
  const auto config = test::tiny_config("transformer_lm");
  test::write_tiny_checkpoint(dir.path(), config, 11);
  const auto whole = SafetensorsFile::open(dir.file("model.safetensors"));
  std::vector<std::vector<std::pair<std::string, torch::Tensor>>> parts(static_cast<size_t>(shards));
  nlohmann::json weight_map = nlohmann::json::object();
  size_t next = 0;
  for (const auto& name : whole->names()) {
    const auto shard = next++ % static_cast<size_t>(shards);
    parts[shard].emplace_back(name, whole->tensor(name).clone());
    weight_map[name] = "model-0000" + std::to_string(shard + 1) + "-of-0000" + std::to_string(shards) + ".safetensors";
  }
  for (size_t shard = 0; shard < parts.size(); ++shard)
    write_safetensors(dir.file("model-0000" + std::to_string(shard + 1) + "-of-0000" + std::to_string(shards) +
                               ".safetensors"),
                      parts[shard]);
  fs::rename(dir.file("model.safetensors"), dir.file("whole.safetensors"));
  return weight_map;
}

void write_index(const TempDir& dir, const nlohmann::json& weight_map) {
  test::write_file(dir.file("model.safetensors.index.json"),
                   nlohmann::json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump());
}

TEST(ShardedWeights, LoadsTheSameModelAsOneFile) {
  TempDir dir;
  write_index(dir, write_sharded(dir, 3));
  const auto sharded = load_checkpoint(dir.path());
  const auto weights = ShardedWeights::open(dir.file("model.safetensors.index.json"));
  std::set<std::string> shard_files;  // every shard holds some of the tensors
  for (const auto& name : weights->names()) shard_files.insert(weights->path_of(name));
  EXPECT_EQ(shard_files.size(), 3u);

  TempDir single;
  test::write_tiny_checkpoint(single.path(), test::tiny_config("transformer_lm"), 11);
  const auto whole = load_checkpoint(single.path());
  auto expected = whole.model->module().named_parameters();
  for (const auto& item : sharded.model->module().named_parameters())
    EXPECT_TRUE(torch::equal(item.value(), expected[item.key()])) << item.key();
  EXPECT_EQ(sharded.stored_dtype, whole.stored_dtype);
  // Each tensor's file is its shard, for messages.
  const auto first = weights->names().front();
  EXPECT_EQ(weights->path_of(first), dir.file("model-00001-of-00003.safetensors"));
}

TEST(ShardedWeights, IndexAndShardsMustAgree) {
  TempDir dir;
  auto weight_map = write_sharded(dir, 2);
  const auto index = dir.file("model.safetensors.index.json");
  const auto name = weight_map.begin().key();
  const std::string first = weight_map[name];
  const std::string other = first == "model-00001-of-00002.safetensors" ? "model-00002-of-00002.safetensors"
                                                                        : "model-00001-of-00002.safetensors";

  auto moved = weight_map;  // a tensor said to be in the other shard
  moved[name] = other;
  write_index(dir, moved);
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.file(other) + ": has no tensor '" + name + "', which model.safetensors.index.json puts in it");

  auto unlisted = weight_map;  // a shard holds a tensor the index leaves out
  unlisted.erase(name);
  write_index(dir, unlisted);
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.file(first) + ": holds tensor '" + name + "', which model.safetensors.index.json does not list");

  auto missing = weight_map;  // a shard that is not there
  missing[name] = "model-00003-of-00002.safetensors";
  write_index(dir, missing);
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            index + ": names shard 'model-00003-of-00002.safetensors', which is not in " + dir.path());

  auto escaping = weight_map;  // a shard outside the folder
  escaping[name] = "../model-00001-of-00002.safetensors";
  write_index(dir, escaping);
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            index + ": shard '../model-00001-of-00002.safetensors' is not a file name in this folder");

  auto number = weight_map;
  number[name] = 7;
  write_index(dir, number);
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            index + ": tensor '" + name + "' maps to 7, not a file name");

  test::write_file(index, R"({"metadata": {}})");
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            index + ": has no \"weight_map\" object (tensor name → shard file)");
  test::write_file(index, R"({"weight_map": {}})");
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }), index + ": \"weight_map\" names no tensor");
  test::write_file(index, "{");
  EXPECT_NE(error_of([&] { load_checkpoint(dir.path()); }).find(index + ": is not valid JSON"), std::string::npos);

  fs::remove(index);
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.path() + ": no model.safetensors or model.safetensors.index.json in this folder");
}

TEST(ShardedWeights, AShardMissingATensorTheModelNeedsIsNamed) {
  TempDir dir;
  auto weight_map = write_sharded(dir, 2);
  // Rewrite shard 2 without its first tensor and drop that tensor from the index too.
  const auto shard_path = dir.file("model-00002-of-00002.safetensors");
  const auto shard = SafetensorsFile::open(shard_path);
  const auto names = shard->names();
  std::vector<std::pair<std::string, torch::Tensor>> kept;
  for (size_t i = 1; i < names.size(); ++i) kept.emplace_back(names[i], shard->tensor(names[i]).clone());
  write_safetensors(shard_path + ".new", kept);
  fs::rename(shard_path + ".new", shard_path);
  weight_map.erase(names.front());
  write_index(dir, weight_map);
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.file("model.safetensors.index.json") + ": missing tensor '" + names.front() +
                "' (a transformer_lm model with this config needs it)");
}

}  // namespace
}  // namespace aw
