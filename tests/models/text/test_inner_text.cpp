// tests/models/text/test_inner_text.cpp — a text's tokens without the template its tokenizer puts around
// every text (models/text/inner_text.h): what a needle, a prompt or a patched answer contributes inside
// a longer sequence.
#include "models/text/hf_tokenizer.h"
#include "models/text/inner_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kTokenizers = AW_SOURCE_DIR "/tests/fixtures/hf_tokenizers/";

TEST(InnerText, DropsTheTemplateAroundTheText) {
  // Llama 2's <s> before every text.
  const auto llama2 = load_hf_tokenizer(kTokenizers + "llama2.tokenizer.json");
  const auto whole = llama2->encode("the cat sat");
  const auto inner = encode_inner(*llama2, "the cat sat");
  ASSERT_EQ(whole.ids.front(), llama2->token_id("<s>"));
  EXPECT_EQ(inner.ids, std::vector<int64_t>(whole.ids.begin() + 1, whole.ids.end()));
  EXPECT_EQ(inner.tokens.size(), inner.ids.size());
  // BERT's [CLS] … [SEP] on both sides.
  const auto bert = load_hf_tokenizer(kTokenizers + "wordpiece.tokenizer.json");
  const auto wrapped = bert->encode("the band");
  EXPECT_EQ(encode_inner(*bert, "the band").ids, std::vector<int64_t>(wrapped.ids.begin() + 1, wrapped.ids.end() - 1));
  // No template (GPT-NeoX's): the text as encoded; an <s> written in the text stays.
  const auto neox = load_hf_tokenizer(kTokenizers + "neox.tokenizer.json");
  EXPECT_EQ(encode_inner(*neox, "Hello world").ids, neox->encode("Hello world").ids);
  EXPECT_EQ(encode_inner(*llama2, "<s>").ids, std::vector<int64_t>{llama2->token_id("<s>")});
}

}  // namespace
}  // namespace aw
