// app/cli/model_commands.cpp — info and attend: load a checkpoint, run it, report.
#include "analysis/attention_stats/top_attended.h"
#include "analysis/capture/attention_capture.h"
#include "analysis/capture/attention_file_reader.h"
#include "analysis/capture/attention_file_writer.h"
#include "analysis/capture/expert_routing.h"
#include "analysis/core/numbered_list.h"
#include "models/text/corpus.h"
#include "table/csv_format.h"
#include "table/result_table.h"
#include "models/training/evaluation.h"
#include "app/cli/attend_logits.h"
#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "app/cli/options.h"
#include "app/cli/progress.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/memory_budget.h"
#include "models/parse_number.h"
#include "models/runtime.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace aw {
namespace {

}  // namespace

// " on 3 of 6 layers" where only some layers slide (Gemma), "" where all do.
std::string sliding_layers_text(const ModelConfig& c) {
  const auto& layers = c.decoder.sliding_layers;
  if (layers.empty()) return "";
  const auto sliding = std::count(layers.begin(), layers.end(), true);
  return " on " + std::to_string(sliding) + " of " + std::to_string(layers.size()) + " layers";
}

// What the newer families add to a decoder (Qwen3, Gemma, OLMo 2), as one line; "" for none.
std::string decoder_extras(const ModelConfig& c) {
  const auto format_number = [](double value) { return cell_text(Cell(value)); };  // 6 significant digits
  const auto& d = c.decoder;
  std::vector<std::string> parts;
  if (d.qk_norm == QkNorm::PerHead) parts.push_back("query/key norms per head");
  if (d.qk_norm == QkNorm::Whole) parts.push_back("query/key norms over all heads");
  if (d.post_norms) parts.push_back(d.pre_norms ? "norms before and after each sublayer" : "norms after each sublayer only");
  if (d.attention_softcap > 0) parts.push_back("scores soft-capped at " + format_number(d.attention_softcap));
  if (d.final_softcap > 0) parts.push_back("logits soft-capped at " + format_number(d.final_softcap));
  if (d.embedding_scale != 1) parts.push_back("embeddings × " + format_number(d.embedding_scale));
  if (d.query_scale > 0) parts.push_back("scores ÷ √" + format_number(d.query_scale));
  if (d.sliding_rotary.dims > 0)
    parts.push_back("sliding layers' rotary base " + format_number(d.sliding_rotary.theta) + ", " +
                    to_string(d.sliding_rotary.scaling) + " scaling");
  if (d.attention_sinks) parts.push_back("a learned attention sink per head");
  if (d.qkv_clip > 0) parts.push_back("queries, keys and values clipped at ±" + format_number(d.qkv_clip));
  const auto& moe = c.moe;
  if (moe.experts > 0) {
    const auto sparse = moe.sparse_layers.empty() ? c.n_blocks
                                                  : std::count(moe.sparse_layers.begin(), moe.sparse_layers.end(), true);
    parts.push_back(std::to_string(moe.experts) + " experts of width " + std::to_string(moe.expert_ffn) + " on " +
                    std::to_string(sparse) + " of " + std::to_string(c.n_blocks) + " layers, top-" +
                    std::to_string(moe.top_k) +
                    (moe.top_k_softmax ? " (softmax over the chosen)" : moe.normalise_top_k ? " renormalised" : "") +
                    (moe.mxfp4 ? ", MXFP4 in the file" : ""));
  }
  std::string line;
  for (const auto& part : parts) line += (line.empty() ? "" : ", ") + part;
  return line;
}

int run_info(int argc, char** argv) {
  const CliOptions options("info", model_command_spec({}), argc, argv, 2);
  const auto loaded = load_from_options(options);
  const auto& c = loaded.config;
  nlohmann::json info = {
      {"model", loaded.dir},          {"model_type", c.family_name()},        {"layers", c.n_blocks},
      {"heads", c.n_heads},           {"heads_per_layer", c.heads_per_block}, {"d_model", c.d_model},
      {"d_head", c.d_head},           {"d_ff", c.d_ff},                    {"vocab_size", c.vocab_size},
      {"max_positions", c.max_positions}, {"norm", to_string(c.norm)},     {"positions", to_string(c.positions)},
      {"activation", to_string(c.activation)}, {"causal", c.causal},       {"tokenizer", loaded.tokenizer->kind()},
      {"parameters", loaded.parameter_count}, {"dtype", loaded.stored_dtype},
      {"compute_dtype", dtype_name(loaded.dtype)}, {"mapped_bytes", loaded.mapped_bytes},
      {"device", describe_device(loaded.device)}};
  if (c.bird_eye) info["diag_free_mask"] = c.diag_free_mask;
  if (!loaded.quantisation.empty()) info["quantisation"] = loaded.quantisation;  // a GGUF file's
  if (c.decoder.kv_heads > 0) {  // a config that states its key/value heads describes its decoder too
    info["key_value_heads"] = c.decoder.kv_heads;
    if (!c.decoder.query_groups.empty()) info["query_groups"] = c.decoder.query_groups;
    info["norm_kind"] = to_string(c.decoder.norm);
    info["sliding_window"] = c.decoder.sliding_window;
    info["parallel_residual"] = c.decoder.parallel_residual;
    const auto& d = c.decoder;
    const char* qk_norms[] = {"none", "per_head", "whole"};
    info["qk_norm"] = qk_norms[static_cast<int>(d.qk_norm)];
    info["pre_norms"] = d.pre_norms;
    info["post_norms"] = d.post_norms;
    info["attention_softcap"] = d.attention_softcap;
    info["final_softcap"] = d.final_softcap;
    info["embedding_scale"] = d.embedding_scale;
    info["query_scale"] = d.query_scale > 0 ? d.query_scale : static_cast<double>(c.d_head);
    if (!d.sliding_layers.empty()) info["sliding_layers"] = d.sliding_layers;
    if (d.sliding_rotary.dims > 0)
      info["sliding_rotary"] = {{"dims", d.sliding_rotary.dims}, {"theta", d.sliding_rotary.theta},
                                {"scaling", to_string(d.sliding_rotary.scaling)}};
  }
  if (c.positions == PositionKind::Rotary)
    info["rotary"] = {{"dims", c.rotary.dims}, {"theta", c.rotary.theta}, {"scaling", to_string(c.rotary.scaling)}};
  if (c.is_classifier()) info["labels"] = c.labels;
  if (c.is_recurrent()) {
    info["embedding_dim"] = c.recurrent.embedding_dim;
    info["rnn_hidden"] = c.recurrent.rnn_hidden;
    info["classifier_hidden"] = c.recurrent.classifier_hidden;
    if (c.has_lama_attention()) info["context"] = to_string(c.recurrent.context);
  }
  if (options.flag("json")) {
    std::cout << info.dump(2) << "\n";
    return 0;
  }
  std::printf("model        %s\n", loaded.dir.c_str());
  std::printf("architecture %s%s\n", c.family_name().c_str(),
              c.bird_eye ? (c.diag_free_mask ? " (bird-eye, diagonal-free mask)" : " (bird-eye, no diagonal mask)") : "");
  if (c.is_translation()) {
    const auto& t = c.translation;
    std::printf("layers       %lld encoder × %lld heads (d_head %lld), %lld decoder × %lld self + %lld cross heads "
                "(d_head %lld)\n",
                static_cast<long long>(t.encoder_layers), static_cast<long long>(t.encoder_heads),
                static_cast<long long>(c.d_head), static_cast<long long>(t.decoder_layers),
                static_cast<long long>(t.decoder_heads), static_cast<long long>(t.decoder_heads),
                static_cast<long long>(t.decoder_d_head));
    std::printf("blocks       %lld attention blocks: encoder self, then each decoder layer's self and cross\n",
                static_cast<long long>(c.n_blocks));
  } else {
    std::printf("layers       %lld × %lld heads (d_head %lld)\n", static_cast<long long>(c.n_blocks),
                static_cast<long long>(c.n_heads), static_cast<long long>(c.d_head));
  }
  if (c.is_recurrent())
    std::printf("recurrent    embeddings %lld → bi-GRU 2 × %lld%s → MLP %lld (max %lld words)\n",
                static_cast<long long>(c.recurrent.embedding_dim), static_cast<long long>(c.recurrent.rnn_hidden),
                c.has_lama_attention() ? (c.recurrent.context == LamaContext::Mean ? ", context: word-embedding mean"
                                                                                    : ", context: learned")
                                       : ", mean pooling",
                static_cast<long long>(c.recurrent.classifier_hidden), static_cast<long long>(c.max_positions));
  else
    std::printf("d_model      %lld, d_ff %lld, %s-LN, %s positions (max %lld), %s\n", static_cast<long long>(c.d_model),
                static_cast<long long>(c.d_ff), to_string(c.norm).c_str(), to_string(c.positions).c_str(),
                static_cast<long long>(c.max_positions), to_string(c.activation).c_str());
  if (c.decoder.kv_heads > 0) {
    const auto& d = c.decoder;
    std::string attention = d.grouped_query ? std::to_string(d.kv_heads) + " key/value heads (grouped-query)"
                                            : "one key/value head per query head";
    if (d.sliding_window > 0) attention += ", sliding window " + std::to_string(d.sliding_window) + sliding_layers_text(c);
    std::printf("decoder      %s, %s, %s%s\n", to_string(d.norm).c_str(), d.gated_mlp ? (c.activation == Activation::Silu ? "SwiGLU MLP" : "GeGLU MLP") : "MLP",
                attention.c_str(), d.parallel_residual ? ", parallel residual" : "");
    const auto extras = decoder_extras(c);
    if (!extras.empty()) std::printf("also         %s\n", extras.c_str());
  }
  if (c.positions == PositionKind::Rotary) {
    const auto& r = c.rotary;
    std::printf("rotary       %lld of %lld channels per head, base %g, %s scaling\n", static_cast<long long>(r.dims),
                static_cast<long long>(c.d_head), r.theta, to_string(r.scaling).c_str());
  }
  std::printf("vocabulary   %lld (%s tokenizer)\n", static_cast<long long>(c.vocab_size), loaded.tokenizer->kind().c_str());
  if (c.is_classifier()) std::printf("classes      %lld\n", static_cast<long long>(c.num_labels));
  std::printf("parameters   %lld (%.2fM), stored as %s\n", static_cast<long long>(loaded.parameter_count),
              loaded.parameter_count / 1e6, loaded.stored_dtype.c_str());
  if (!loaded.quantisation.empty()) std::printf("quantisation %s\n", loaded.quantisation.c_str());
  std::printf("computes in  %s (%.1f MB of weights used in place from the file)\n", dtype_name(loaded.dtype).c_str(),
              static_cast<double>(loaded.mapped_bytes) / 1e6);
  std::printf("device       %s\n", describe_device(loaded.device).c_str());
  return 0;
}

namespace {

// attend --from FILE.safetensors: the summary of a saved attention file, reading only its layers'
// last rows (the file is memory-mapped), without the model.
int summarise_attention_file(const CliOptions& options) {
  for (const auto* other : {"model", "text", "out", "heads", "out-dtype"})
    if (options.has(other))
      throw Error(std::string("attention-cli attend: --from reads a saved file; --") + other + " does not go with it");
  const auto top = options.get_int("top", 3, 1);
  AttentionFileContents contents;
  try {
    contents = read_attention_file(options.get("from", ""));
  } catch (const Error& error) {
    throw Error(std::string("attention-cli attend: ") + error.what());
  }
  std::vector<int64_t> chosen;  // indexes into contents.layers
  if (options.has("layers")) {
    const int last = *std::max_element(contents.layer_numbers.begin(), contents.layer_numbers.end());
    for (const auto layer : parse_numbered_list(options.get("layers", ""), last, "layer")) {
      const auto before = chosen.size();  // a translation file has an enc, dec and cross block per number
      for (size_t index = 0; index < contents.layer_numbers.size(); ++index)
        if (contents.layer_numbers[index] == layer + 1) chosen.push_back(static_cast<int64_t>(index));
      if (chosen.size() == before)
        throw Error("attention-cli attend: " + options.get("from", "") + " holds no layer " + std::to_string(layer + 1));
    }
  } else {
    for (size_t index = 0; index < contents.layers.size(); ++index) chosen.push_back(static_cast<int64_t>(index));
  }
  std::printf("%zu tokens of %s (heads: %s):", contents.tokens.size(), contents.model.c_str(), contents.heads.c_str());
  for (const auto& token : contents.tokens) std::printf(" [%s]", token.c_str());
  if (!contents.translation.empty()) std::printf("\ntranslation: %s", contents.translation.c_str());
  std::printf("\ntop-%lld attended tokens from each block's last query row, mean over the file's heads:\n",
              static_cast<long long>(top));
  for (const auto index : chosen) {
    const auto& block = contents.layers[index];  // (H, rows, cols): only this row's pages are read
    const bool with_kind = !contents.kinds.empty();  // a translation file
    const auto& columns =
        with_kind && keys_are_target(contents.kinds[index]) ? contents.target_tokens : contents.tokens;
    const auto row = block.select(1, block.size(1) - 1).to(torch::kFloat64).mean(0);
    const auto block_name = with_kind ? to_string(contents.kinds[index]) : std::string("layer");
    std::printf("  %s %2d:", block_name.c_str(), contents.layer_numbers[index]);
    for (const auto& attended : top_attended(row, top))
      std::printf("  %s@%lld %.3f", columns[attended.position].c_str(), static_cast<long long>(attended.position),
                  attended.weight);
    std::printf("\n");
  }
  return 0;
}

// "5-9" (1-based, inclusive) or "7" → [4, 9) or [6, 7); `flag` names the option in the error.
std::pair<int64_t, int64_t> parse_span(const std::string& text, const std::string& flag) {
  const auto dash = text.find('-');
  int64_t first = 0, last = 0;
  const bool read = dash == std::string::npos
                        ? parse_integer(text, first) && (last = first, true)
                        : parse_integer(text.substr(0, dash), first) && parse_integer(text.substr(dash + 1), last);
  if (!read || first < 1 || last < first)
    throw Error(flag + " " + text + ": expected A-B, 1-based tokens with A ≤ B (e.g. 1-512)");
  return {first - 1, last};
}

bool ends_with_npy(const std::string& path) { return path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0; }

}  // namespace

int run_attend(int argc, char** argv) {
  const CliOptions options("attend",
                           model_command_spec({"text", "out", "top", "layers", "heads", "out-dtype", "from", "rows",
                                               "cols", "pool", "logits", "experts"},
                                              {"truncate", "pool-max"}),
                           argc, argv, 2);
  if (options.has("from")) return summarise_attention_file(options);
  const auto text = options.require("text");
  const auto top = options.get_int("top", 3, 1);
  const auto out = options.get("out", "");
  const bool binary = is_binary_attention_path(out);
  const auto out_dtype = attention_out_dtype(options, "attend");
  const bool region_or_pool = options.has("rows") || options.has("cols") || options.has("pool") || options.flag("pool-max");
  if ((options.has("layers") || options.has("heads") || options.has("out-dtype") || region_or_pool) && !binary)
    throw Error("attention-cli attend: --layers, --heads, --out-dtype, --rows, --cols and --pool go with --out "
                "FILE.safetensors or FILE.npy");
  if (options.flag("pool-max") && !options.has("pool"))
    throw Error("attention-cli attend: --pool-max goes with --pool K (the block size)");
  const auto pool = options.has("pool") ? options.get_int("pool", 0, 0) : 0;
  if (options.has("pool") && pool < 1) throw Error("attention-cli attend: --pool 0: a block is at least 1 token wide");
  const auto loaded = load_from_options(options);
  if (loaded.config.is_translation())
    throw Error("attention-cli attend: " + loaded.name + " is a " + loaded.config.family_name() +
                " translation model; use attention-cli translate --model " + loaded.dir + " --text \"…\"");

  const auto logits = options.has("logits") ? parse_logits_request(options.get("logits", ""), loaded) : LogitsRequest{};
  if (logits.kind == LogitsRequest::Kind::Full && (!binary || ends_with_npy(out)))
    throw Error("attention-cli attend: --logits full goes with --out FILE.safetensors (the logits beside the attention)");
  auto encoding = loaded.tokenizer->encode(text);
  if (encoding.ids.empty()) throw Error("attention-cli attend: --text gives no tokens (empty text)");
  const auto max_positions = loaded.config.max_positions;
  if (static_cast<int64_t>(encoding.ids.size()) > max_positions) {
    if (!options.flag("truncate"))
      throw Error("attention-cli attend: the text has " + std::to_string(encoding.ids.size()) +
                  " tokens but the model allows " + std::to_string(max_positions) +
                  " positions (shorten it, or pass --truncate)");
    std::fprintf(stderr, "attend: text truncated from %zu to %lld tokens\n", encoding.ids.size(),
                 static_cast<long long>(max_positions));
    encoding.ids.resize(max_positions);
    encoding.tokens.resize(max_positions);
    encoding.type_ids.resize(max_positions);
  }

  // The summary below: per layer, the mean over the heads (those exported, with --heads) of the last
  // position's row (LAMA: its one row), as (layer, row).
  const auto last = static_cast<int64_t>(encoding.ids.size()) - 1;
  torch::Tensor heads;
  auto summary_row = [&heads](const torch::Tensor& probabilities, int64_t index) {  // [1, H, rows, n] → (n)
    auto row = probabilities.select(0, 0).select(1, index);                              // (H, n)
    if (heads.defined()) row = row.index_select(0, heads.to(row.device()));
    return row.mean(0).to(torch::kCPU, torch::kFloat64);
  };
  std::vector<std::pair<int64_t, torch::Tensor>> rows;
  // The summary's row, the last position's (LAMA: its one row), from whichever tile holds it.
  const AttentionTileObserver summarise = [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
    const int64_t wanted = loaded.config.has_lama_attention() ? 0 : last;
    if (wanted >= first_row && wanted < first_row + tile.size(2)) rows.emplace_back(layer, summary_row(tile, wanted - first_row));
  };
  if (binary) {
    // Written layer by layer as the forward goes: one layer in memory, not all of them.
    AttentionExportSettings settings;
    settings.path = out;
    settings.dtype = out_dtype;
    try {
      if (options.has("layers"))
        settings.layers = parse_numbered_list(options.get("layers", ""), loaded.config.n_blocks, "layer");
      if (options.has("heads")) {
        settings.heads = parse_numbered_list(options.get("heads", ""), loaded.config.max_heads(), "head");
        heads = torch::tensor(settings.heads, torch::kLong);
      }
      if (options.has("rows")) std::tie(settings.row_begin, settings.row_end) = parse_span(options.get("rows", ""), "--rows");
      if (options.has("cols")) std::tie(settings.col_begin, settings.col_end) = parse_span(options.get("cols", ""), "--cols");
      settings.pool = pool;
      settings.pool_kind = options.flag("pool-max") ? PoolKind::Max : PoolKind::Mean;
      settings.logits = logits.kind == LogitsRequest::Kind::Full;
      export_attention(*loaded.model, loaded.name, encoding, settings, summarise);
    } catch (const Error& error) {
      throw Error(std::string("attention-cli attend: ") + error.what());
    }
  }
  // Each sparse layer's experts per token (mixtures of experts), from one more forward.
  if (options.has("experts")) {
    try {
      const auto routing = route_tokens(*loaded.model, loaded.name, encoding);
      write_text_file(options.get("experts", ""), write_csv(routing_table(routing, encoding, loaded.name)));
      if (!options.flag("json"))
        std::printf("experts of %zu sparse layer%s × %zu tokens written to %s\n", routing.size(),
                    routing.size() == 1 ? "" : "s", encoding.ids.size(), options.get("experts", "").c_str());
    } catch (const Error& error) {
      throw Error(std::string("attention-cli attend: ") + error.what());
    }
  }
  // The K best next tokens per position, from one more forward without capture.
  const auto top_logits = logits.kind == LogitsRequest::Kind::Top
                              ? top_logits_json(loaded, encoding, logits.k)
                              : nlohmann::json();
  if (binary && options.flag("json")) {
    nlohmann::json json = {{"out", out}, {"tokens", encoding.tokens}};
    if (!top_logits.is_null()) json["logits_top"] = top_logits;
    std::cout << json.dump() << "\n";
    return 0;
  }
  // JSON holds every layer whole (small texts); the summary alone needs one row of each layer, taken
  // from the tiles as they pass (a text of any length).
  const bool whole = !binary && (options.has("out") || options.flag("json"));
  if (whole) {  // every layer's n × n pattern in memory at once (float32), then as text
    const auto n = static_cast<int64_t>(encoding.ids.size());
    const int64_t bytes = loaded.config.n_blocks * loaded.config.max_heads() * n * n * 4;
    if (bytes > attention_memory_budget())
      throw Error("attention-cli attend: JSON keeps every layer's whole pattern: " + format_bytes(bytes) + " at " +
                  std::to_string(n) + " tokens, over the memory budget of " + format_bytes(attention_memory_budget()) +
                  " (--memory-budget); write it tile by tile with --out FILE.safetensors, or a region (--rows, "
                  "--cols) or --pool K of it");
  }
  const auto result = whole ? capture_attention(*loaded.model, encoding) : ForwardResult{};
  if (!binary && !whole) {
    c10::InferenceMode inference;
    loaded.model->module().eval();
    ForwardOptions summary;
    summary.capture = CaptureMode::Stats;
    summary.tile_observer = summarise;
    const auto input = encoding_input(encoding);
    loaded.model->run_layers(loaded.model->embed(input), input, 0, loaded.config.n_blocks, summary);
  }
  for (size_t layer = 0; layer < result.attention.size(); ++layer)
    rows.emplace_back(static_cast<int64_t>(layer),
                      summary_row(result.attention[layer], std::min(last, result.attention[layer].size(2) - 1)));

  auto json = binary ? nlohmann::json() : attention_json(encoding, result.attention);
  if (!binary && !top_logits.is_null()) json["logits_top"] = top_logits;
  if (options.has("out") && !binary) write_text_file(out, json.dump() + "\n");
  if (options.flag("json")) {
    if (!options.has("out")) std::cout << json.dump() << "\n";
    else std::cout << nlohmann::json{{"out", options.get("out", "")}, {"tokens", encoding.tokens}}.dump() << "\n";
    return 0;
  }

  std::printf("%zu tokens:", encoding.tokens.size());
  for (const auto& token : encoding.tokens) std::printf(" [%s]", token.c_str());
  if (loaded.config.has_lama_attention())
    std::printf("\ntop-%lld attended words (LAMA: one distribution per head over the words), mean over heads:\n",
                static_cast<long long>(top));
  else
    std::printf("\ntop-%lld attended tokens from the last position (%s), mean over heads:\n",
                static_cast<long long>(top), encoding.tokens.back().c_str());
  for (const auto& [layer, row] : rows) {
    std::printf("  layer %2lld:", static_cast<long long>(layer + 1));
    for (const auto& attended : top_attended(row, top))
      std::printf("  %s@%lld %.3f", encoding.tokens[attended.position].c_str(),
                  static_cast<long long>(attended.position), attended.weight);
    std::printf("\n");
  }
  if (!top_logits.is_null()) print_top_logits(top_logits);
  if (options.has("out"))
    std::printf("attention of %zu layer%s written to %s%s\n", rows.size(), rows.size() == 1 ? "" : "s", out.c_str(),
                logits.kind == LogitsRequest::Kind::Full ? ", with the logits" : "");
  return 0;
}


}  // namespace aw
