// app/gui/model_session_files.cpp — ModelSession's readers of files that are not checkpoints: an
// attention file written by `attend --out`, opened to browse, and the Hugging Face cache's listing
// (model_session.h).
#include "app/gui/model_session.h"
#include "app/gui/session_tensors.h"
#include "app/gui/token_display.h"

#include "analysis/capture/attention_file_reader.h"
#include "models/checkpoint/hub_cache.h"

#include <QFileInfo>

namespace aw {

using session::guarded;
using session::weight_block;

SavedAttention ModelSession::openAttentionFile(const QString& path) {
  return guarded([&] {
    const auto contents = read_attention_file(path.toStdString());
    SavedAttention saved;
    saved.model = QString::fromStdString(contents.model);
    saved.heads = QString::fromStdString(contents.heads);
    for (const auto& token : contents.tokens) saved.capture.tokens << shown_token(token);
    for (size_t index = 0; index < contents.layers.size(); ++index) {
      saved.capture.layers.push_back(weight_block(contents.layers[index].to(torch::kFloat32)));  // F16: a copy
      saved.capture.thumbnails.push_back(weight_block(contents.thumbnails[index]));
    }
    saved.capture.layer_numbers = contents.layer_numbers;
    for (const auto& label : contents.row_labels) saved.capture.row_labels << QString::fromStdString(label);
    for (const auto& label : contents.col_labels) saved.capture.column_labels << QString::fromStdString(label);
    saved.capture.text = saved.capture.tokens.join(' ');
    for (const auto& token : contents.target_tokens) saved.capture.target_tokens << shown_token(token);
    saved.capture.translation = QString::fromStdString(contents.translation);
    const bool translation = !contents.target_tokens.empty();
    if (translation) saved.capture.layer_kinds = contents.kinds;
    auto& summary = saved.summary;
    summary.name = QFileInfo(path).fileName();
    summary.dir = QFileInfo(path).absoluteFilePath();
    summary.architecture = "saved attention";
    summary.layers = saved.capture.layerCount();
    for (const auto& block : saved.capture.layers) summary.heads_per_block.push_back(block.heads);
    summary.translation = translation;
    for (size_t index = 0; index < contents.layer_numbers.size(); ++index) {
      auto kind = translation ? QString::fromStdString(to_string(contents.kinds[index])) : QString("layer");
      if (translation) kind[0] = kind[0].toUpper();  // "Cross 2", as for a loaded translation model
      summary.layer_names << QString("%1 %2").arg(kind).arg(contents.layer_numbers[index]);
    }
    summary.max_positions = saved.capture.length();
    return saved;
  });
}

CachedHubModels ModelSession::cachedHubModels() {
  CachedHubModels listing;
  listing.cache = QString::fromStdString(hub_cache_dir());
  for (const auto& model : cached_models()) {
    listing.names << QString::fromStdString(model.name);
    listing.folders << QString::fromStdString(model.dir);
  }
  return listing;
}

}  // namespace aw
