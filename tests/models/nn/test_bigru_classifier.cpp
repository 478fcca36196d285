// tests/models/nn/test_bigru_classifier.cpp — LAMA's BiGRU baselines (models/nn/bigru_classifier.h): the
// words' annotations pooled by max or mean, by hand.
#include "models/nn/bigru_classifier.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::max_difference;
using test::two_documents;

TEST(Lama, BiGruBaselinesPoolTheWordsAnnotationsByMaxOrMean) {
  for (const char* arch : {"bigru_max", "bigru_mean"}) {
    SCOPED_TRACE(arch);
    torch::manual_seed(4);
    auto model = std::make_shared<BiGruImpl>(test::tiny_lama_config(arch));
    model->eval();
    torch::NoGradGuard no_grad;
    const auto input = two_documents();  // 7 words and 5 words + 2 padding
    const auto annotations = model->embed(input).to(torch::kFloat64);  // (2, 7, 8)
    const std::vector<int64_t> lengths = {7, 5};
    for (int64_t doc = 0; doc < 2; ++doc) {
      // Pooled by hand over the document's own words only.
      auto pooled = torch::empty({annotations.size(2)}, torch::kFloat64);
      for (int64_t d = 0; d < annotations.size(2); ++d) {
        double value = std::string(arch) == "bigru_max" ? -1e300 : 0.0;
        for (int64_t t = 0; t < lengths[doc]; ++t) {
          const double a = annotations[doc][t][d].item<double>();
          value = std::string(arch) == "bigru_max" ? std::max(value, a) : value + a / lengths[doc];
        }
        pooled[d] = value;
      }
      const auto expected = model->mlp(pooled.to(torch::kFloat32).unsqueeze(0));
      const auto logits = model->forward(input).logits[doc];
      EXPECT_TRUE(torch::allclose(logits, expected[0], 1e-5, 1e-6)) << max_difference(logits, expected[0]);
    }
  }
}

}  // namespace
}  // namespace aw
