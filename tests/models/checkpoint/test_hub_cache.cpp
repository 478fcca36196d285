// tests/models/checkpoint/test_hub_cache.cpp — models/checkpoint/hub_cache.h on a Hub cache laid out by hand
// as huggingface_hub documents it (models--<org>--<name>/{blobs/<hash>, refs/<branch or tag> holding a commit,
// snapshots/<commit>/<file> linking to ../../blobs/<hash>}), with tests/fixtures/hf_models/llama's files: a
// model opens by name and by revision as from its folder; the cache is found through each environment
// variable in huggingface_hub's order; a name, a revision or a blob not there gets its one line with the
// `hf download` command.
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/hub_cache.h"
#include "models/errors.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace aw {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::TempDir;

const std::string kLlama = AW_SOURCE_DIR "/tests/fixtures/hf_models/llama";
const std::string kMain = "0123456789abcdef0123456789abcdef01234567";
const std::string kTagged = "89abcdef0123456789abcdef0123456789abcdef";

// Sets environment variables for one test and puts them back after it.
class Environment {
 public:
  void set(const std::string& name, const std::optional<std::string>& value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value) setenv(name.c_str(), value->c_str(), 1);
    else unsetenv(name.c_str());
  }
  ~Environment() {
    for (const auto& [name, value] : saved_) {
      if (value) setenv(name.c_str(), value->c_str(), 1);
      else unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// One snapshot of the llama fixture under `commit`: each file a blob, linked relatively as the library does.
void add_snapshot(const fs::path& repository, const std::string& commit) {
  fs::create_directories(repository / "blobs");
  fs::create_directories(repository / "snapshots" / commit);
  int index = 0;
  for (const auto& entry : fs::directory_iterator(kLlama)) {
    const auto blob = commit.substr(0, 8) + std::string(56, static_cast<char>('0' + index++));
    fs::copy_file(entry.path(), repository / "blobs" / blob, fs::copy_options::overwrite_existing);
    fs::create_symlink(fs::path("../../blobs") / blob, repository / "snapshots" / commit / entry.path().filename());
  }
}

void write_ref(const fs::path& repository, const std::string& name, const std::string& commit) {
  fs::create_directories(repository / "refs");
  test::write_file((repository / "refs" / name).string(), commit);  // the library writes no newline
}

class HubCache : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"})
      environment.set(name, std::nullopt);
    cache = fs::path(dir.path()) / "hub";
    repository = cache / "models--aw-test--tiny-llama";
    add_snapshot(repository, kMain);
    add_snapshot(repository, kTagged);
    write_ref(repository, "main", kMain);
    write_ref(repository, "v1", kTagged);
    environment.set("HF_HUB_CACHE", cache.string());
  }

  TempDir dir;
  Environment environment;
  fs::path cache, repository;
};

TEST_F(HubCache, AModelOpensByNameAsFromItsFolder) {
  const auto snapshot = resolve_hub_snapshot("aw-test/tiny-llama");
  EXPECT_EQ(snapshot, (repository / "snapshots" / kMain).string());
  EXPECT_EQ(resolve_model_argument("aw-test/tiny-llama"), snapshot);
  const auto cached = load_checkpoint(snapshot);
  EXPECT_EQ(cached.name, "tiny-llama") << "named after its model, not its commit";
  const auto folder = load_checkpoint(kLlama);
  ModelInput input;
  input.input_ids = torch::tensor({{3, 7, 1, 12, 5}}, torch::kLong);
  torch::InferenceMode inference;
  EXPECT_TRUE(torch::equal(cached.model->forward(input).logits, folder.model->forward(input).logits));
  EXPECT_EQ(cached.tokenizer->encode("hello world").ids, folder.tokenizer->encode("hello world").ids);
}

TEST_F(HubCache, ARevisionIsABranchATagOrACommit) {
  const auto tagged = (repository / "snapshots" / kTagged).string();
  EXPECT_EQ(resolve_hub_snapshot("aw-test/tiny-llama", "v1"), tagged);
  EXPECT_EQ(resolve_hub_snapshot("aw-test/tiny-llama", kTagged), tagged);
  EXPECT_EQ(resolve_hub_snapshot("aw-test/tiny-llama", "main"), (repository / "snapshots" / kMain).string());
  EXPECT_EQ(error_of([] { resolve_hub_snapshot("aw-test/tiny-llama", "dev"); }),
            "aw-test/tiny-llama: no revision 'dev' in the Hub cache (" + (repository / "refs" / "dev").string() +
                " does not exist); fetch it with: hf download aw-test/tiny-llama --revision dev");
}

TEST_F(HubCache, TheCacheIsFoundAsHuggingFaceHubFindsIt) {
  EXPECT_EQ(hub_cache_dir(), cache.string());
  environment.set("HF_HUB_CACHE", std::nullopt);
  environment.set("HUGGINGFACE_HUB_CACHE", "/legacy");
  EXPECT_EQ(hub_cache_dir(), "/legacy");
  environment.set("HUGGINGFACE_HUB_CACHE", std::nullopt);
  environment.set("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(hub_cache_dir(), "/xdg/huggingface/hub");
  environment.set("HF_HOME", dir.path());  // HF_HOME before XDG_CACHE_HOME
  EXPECT_EQ(hub_cache_dir(), dir.path() + "/hub");
  EXPECT_EQ(resolve_hub_snapshot("aw-test/tiny-llama"), (repository / "snapshots" / kMain).string());
  environment.set("HF_HOME", std::nullopt);
  environment.set("XDG_CACHE_HOME", std::nullopt);
  environment.set("HOME", "/home/someone");
  EXPECT_EQ(hub_cache_dir(), "/home/someone/.cache/huggingface/hub");
}

TEST_F(HubCache, WhatIsNotThereGetsWhereItLookedAndTheDownloadCommand) {
  EXPECT_EQ(error_of([] { resolve_model_argument("Qwen/Qwen3-0.6B"); }),
            "Qwen/Qwen3-0.6B is not a folder here, and not in the Hub cache (" +
                (cache / "models--Qwen--Qwen3-0.6B").string() + " does not exist); fetch it with: hf download Qwen/Qwen3-0.6B");
  fs::remove(repository / "blobs" / (kMain.substr(0, 8) + std::string(56, '0')));  // the first file's blob
  const auto error = error_of([] { resolve_hub_snapshot("aw-test/tiny-llama"); });
  EXPECT_NE(error.find("a link to a missing blob (../../blobs/" + kMain.substr(0, 8)), std::string::npos) << error;
  EXPECT_NE(error.find("the download did not finish; fetch it again with: hf download aw-test/tiny-llama"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.rfind((repository / "snapshots" / kMain).string(), 0), 0u) << error;
  // The list of cached models leaves the broken one out.
  EXPECT_TRUE(cached_models().empty());
}

TEST_F(HubCache, PathsStayPathsAndTheCacheListsItsModels) {
  EXPECT_EQ(resolve_model_argument(kLlama), kLlama);
  EXPECT_EQ(error_of([] { resolve_model_argument(kLlama, "v1"); }),
            "--revision v1 is for a model by its Hub name; " + kLlama + " is a path");
  for (const auto* name : {"gpt2", "Qwen/Qwen3-0.6B", "org/model.v2_x"}) EXPECT_TRUE(looks_like_hub_name(name)) << name;
  for (const auto* name : {"", "./model", "/abs/path", "a/b/c", "org/", "name with space"})
    EXPECT_FALSE(looks_like_hub_name(name)) << name;
  const auto models = cached_models();
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].name, "aw-test/tiny-llama");
  EXPECT_EQ(models[0].dir, (repository / "snapshots" / kMain).string());
}

}  // namespace
}  // namespace aw
