// app/cli/translate_command.cpp — `attention-cli translate`: one sentence through a translation model
// (greedy or beam search, or with --target a given translation read teacher-forced), the translation
// printed with the source word each target token attends to most (the last decoder layer's cross-attention, mean over heads), and with --out every encoder,
// decoder and cross attention block as JSON (analysis/capture/translation_capture.h).
#include "analysis/capture/attention_file_writer.h"
#include "analysis/capture/translation_capture.h"
#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace aw {

int run_translate(int argc, char** argv) {
  const CliOptions options("translate",
                           model_command_spec({"text", "target", "out", "beam", "length-penalty", "max-length", "kinds",
                                               "out-dtype"}),
                           argc, argv, 2);
  const auto text = options.require("text");
  const auto out = options.get("out", "");
  const bool binary = is_binary_attention_path(out);  // a .npy is refused by the export: blocks differ in shape
  const auto out_dtype = attention_out_dtype(options, "translate");
  if ((options.has("kinds") || options.has("out-dtype")) && !binary)
    throw Error("attention-cli translate: --kinds and --out-dtype go with --out FILE.safetensors");
  std::vector<AttentionKind> kinds;
  if (options.has("kinds")) {
    std::stringstream list(options.get("kinds", ""));
    for (std::string name; std::getline(list, name, ',');) {
      const auto kind = parse_attention_kind(name);
      if (!kind)
        throw Error("attention-cli translate: --kinds " + options.get("kinds", "") + ": '" + name +
                    "' is not enc, dec or cross");
      kinds.push_back(*kind);
    }
  }
  SearchSettings settings;
  settings.beam = options.get_int("beam", 4, 1);
  settings.max_new_tokens = options.get_int("max-length", 0, 0);
  const auto penalty_text = options.get("length-penalty", "1.0");
  if (!parse_real(penalty_text, settings.length_penalty))
    throw Error("attention-cli translate: --length-penalty expects a number, got '" + penalty_text + "'");
  const bool forced = options.has("target");
  if (forced && (options.has("beam") || options.has("max-length") || options.has("length-penalty")))
    throw Error("attention-cli translate: --beam, --max-length and --length-penalty shape a search; --target is read "
                "as given (teacher-forced)");
  const auto loaded = load_from_options(options);
  auto* model = loaded.model->sequence_to_sequence();
  if (!model)
    throw Error("attention-cli translate: " + loaded.name + " is a " + loaded.config.family_name() +
                " model, not a translation model (transformer_mt, marian or bart); try attend");
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto capture = forced ? capture_translation_of(*model, codec, text, options.get("target", ""))
                              : translate_and_capture(*model, codec, text, settings);
  const auto json = translation_json(capture, loaded.config);
  if (binary) {
    try {
      export_translation_attention(capture, loaded.config, loaded.name, out, out_dtype, kinds);
    } catch (const Error& error) {
      throw Error(std::string("attention-cli translate: ") + error.what());
    }
  } else if (options.has("out")) {
    write_text_file(out, json.dump() + "\n");
  }
  if (options.flag("json")) {
    nlohmann::json summary = json;
    summary.erase("blocks");
    if (options.has("out")) summary["out"] = options.get("out", "");
    std::cout << summary.dump() << "\n";
    return 0;
  }
  std::printf("%s\n", capture.translation.c_str());
  if (forced)
    std::printf("log-probability %.4f of the given target (teacher-forced, %zu tokens with EOS)\n",
                capture.hypothesis.score, capture.hypothesis.ids.size() + 1);
  else
    std::printf("score %.4f (%s, beam %lld)\n", capture.hypothesis.score,
                capture.hypothesis.finished ? "ended with EOS" : "stopped at the length limit",
                static_cast<long long>(settings.beam));
  std::printf("source tokens:");
  for (const auto& token : capture.source_tokens) std::printf(" [%s]", token.c_str());
  // Each generated token with the source token the last cross-attention block looks at most.
  const auto& config = loaded.config;
  const auto last_cross = config.block_index(AttentionKind::Cross, config.translation.decoder_layers - 1);
  const auto alignment = capture.attention.at(last_cross).mean(0).argmax(-1);              // (m)
  std::printf("\n%s tokens (→ most attended source token, last cross-attention layer, mean over heads):\n",
              forced ? "given target" : "target");
  for (size_t row = 1; row < capture.decoder_tokens.size(); ++row)
    std::printf("  %s → %s\n", capture.decoder_tokens[row].c_str(),
                capture.source_tokens.at(alignment[static_cast<int64_t>(row) - 1].item<int64_t>()).c_str());
  if (options.has("out")) {
    size_t written = 0;
    for (int64_t block = 0; block < config.n_blocks; ++block)
      if (kinds.empty() || std::find(kinds.begin(), kinds.end(), config.attention_block(block).kind) != kinds.end())
        ++written;
    std::printf("attention of %zu blocks (%s) written to %s\n", written,
                kinds.empty() ? "enc, dec, cross" : options.get("kinds", "").c_str(), out.c_str());
  }
  return 0;
}

}  // namespace aw
