// widgets/analysis_plots.cpp — see analysis_plots.h.
#include "widgets/analysis_plots.h"

#include "widgets/circuit_plot.h"
#include "widgets/logit_lens_plot.h"
#include "widgets/result_plot.h"

#include <QSet>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace aw {
namespace {

QString text_at(const ResultTable& table, int row, int column) {
  return column < 0 ? QString() : QString::fromStdString(table.text(row, column));
}

QString meta(const ResultTable& table, const std::string& key) { return QString::fromStdString(table.meta_text(key)); }

// Table rows grouped by a text column, in first-seen order: {group, row indexes}.
std::vector<std::pair<QString, std::vector<int>>> group_rows(const ResultTable& table, int column) {
  std::vector<std::pair<QString, std::vector<int>>> groups;
  for (int row = 0; row < table.row_count(); ++row) {
    const auto key = text_at(table, row, column);
    auto found = std::find_if(groups.begin(), groups.end(), [&](const auto& group) { return group.first == key; });
    if (found == groups.end()) groups.push_back({key, {row}});
    else found->second.push_back(row);
  }
  return groups;
}

// A layers × heads grid of values and its row labels.
struct LayerHeadValues {
  QVector<QVector<double>> values;  // [row][head − 1]
  QStringList labels;               // empty: rows are layers 1, 2, … ("L1", …)
  QStringList positions;            // a table by position: each column's position; empty by head
};

// values[layer − 1][head − 1] from a table with 1-based `layer` and `head` columns; a translation
// model's table also has `kind`: one row per (kind, layer) in the table's order, named "cross 2". A
// table with a `position` column instead (patching a residual-stream point) has one column per
// position, in the table's order.
LayerHeadValues layer_head_matrix(const ResultTable& table, const std::string& value_column) {
  LayerHeadValues grid;
  const bool by_position = table.column("head") < 0 && table.column("position") >= 0;
  const int kind_col = table.column("kind"), layer_col = table.column("layer"),
            head_col = table.column(by_position ? "position" : "head"), value_col = table.column(value_column);
  for (int row = 0; row < table.row_count(); ++row) {
    const double layer_value = table.number(row, layer_col), head_value = table.number(row, head_col);
    if (!(layer_value >= 1) || !(head_value >= (by_position ? 0 : 1))) continue;
    if (by_position && !grid.positions.contains(text_at(table, row, head_col)))
      grid.positions << text_at(table, row, head_col);
    const int layer = static_cast<int>(layer_value);
    const int head = by_position ? static_cast<int>(grid.positions.indexOf(text_at(table, row, head_col))) + 1
                                 : static_cast<int>(head_value);
    int index = layer - 1;
    if (kind_col >= 0) {
      const auto label = text_at(table, row, kind_col) + " " + text_at(table, row, layer_col);
      index = grid.labels.indexOf(label);
      if (index < 0) index = grid.labels.size(), grid.labels << label;
    }
    while (grid.values.size() <= index) grid.values.append(QVector<double>());
    while (grid.values[index].size() < head) grid.values[index].append(NAN);
    grid.values[index][head - 1] = table.number(row, value_col);
  }
  return grid;
}

// "layer 3" or, with a kind column, "cross 2".
QString layer_label(const ResultTable& table, int row) {
  const int kind_col = table.column("kind");
  const auto layer = text_at(table, row, table.column("layer"));
  return kind_col >= 0 ? text_at(table, row, kind_col) + " " + layer : "layer " + layer;
}

QString metric_label(const ResultTable& table) {
  const auto metric = meta(table, "metric");
  if (metric == "bleu") return "BLEU";  // an acronym; perplexity and accuracy read as they are written
  return metric.isEmpty() ? QString("metric") : metric;
}

// The uniform-attention Ratio of the table's rows (the null baseline): "uniform attention" when every
// row shares it, else one dashed line per model (and kind) in the model's bar colour.
QVector<ReferenceLine> uniform_ratio_lines(const ResultTable& table) {
  const int uniform_col = table.column("uniform_Ratio"), model_col = table.column("model"),
            kind_col = table.column("kind");
  QVector<ReferenceLine> lines;
  if (uniform_col < 0) return lines;  // a table from before the baseline
  const auto models = group_rows(table, model_col);  // the bars' series, in their order
  for (int series = 0; series < static_cast<int>(models.size()); ++series)
    for (int row : models[static_cast<size_t>(series)].second) {
      const double value = table.number(row, uniform_col);
      if (!std::isfinite(value)) continue;
      QString name = "uniform: " + text_at(table, row, model_col);
      if (kind_col >= 0) name += " " + text_at(table, row, kind_col);
      const bool seen = std::any_of(lines.begin(), lines.end(), [&](const ReferenceLine& line) {
        return line.series == series && std::abs(line.y - value) <= 1e-9 * std::max(1.0, std::abs(value));
      });
      if (!seen) lines.push_back({name, value, series});
    }
  const bool one_value = std::all_of(lines.begin(), lines.end(), [&](const ReferenceLine& line) {
    return std::abs(line.y - lines.front().y) <= 1e-9 * std::max(1.0, std::abs(line.y));
  });
  if (!lines.isEmpty() && one_value) return {{"uniform attention", lines.front().y}};
  return lines;
}

void plot_table_one(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  const int model_col = table.column("model"), layer_col = table.column("layer"), head_col = table.column("head"),
            ratio_col = table.column("Ratio");
  const int low_col = table.column("Ratio_low"), high_col = table.column("Ratio_high");
  QStringList categories;
  QVector<PlotSeries> series;
  for (const auto& [model, rows] : group_rows(table, model_col)) {
    PlotSeries bars{model, {}, {}};
    QStringList model_categories;
    for (int row : rows) {
      bars.y << table.number(row, ratio_col);
      if (low_col >= 0 && high_col >= 0) bars.low << table.number(row, low_col), bars.high << table.number(row, high_col);
      model_categories << (head_col >= 0 ? QString("L%1 H%2").arg(text_at(table, row, layer_col), text_at(table, row, head_col))
                                         : layer_label(table, row));
    }
    if (model_categories.size() > categories.size()) categories = model_categories;
    series << bars;
  }
  QString title = "Ratio = CA / HA(μ) per layer";
  if (low_col >= 0) title += QString("; whiskers: 95 % interval over %1").arg(meta(table, "unit"));
  plot.showBars(title, categories, series, "Ratio", uniform_ratio_lines(table));
}

// Where a bootstrap ran, the heads whose `significant` is 1 starred, and the title saying what a star means.
QVector<QVector<bool>> significance_marks(const ResultTable& table, QString& title) {
  QVector<QVector<bool>> marks;
  if (table.column("significant") < 0) return marks;
  for (const auto& row : layer_head_matrix(table, "significant").values) {
    QVector<bool> marked;
    for (double value : row) marked << (value == 1.0);
    marks << marked;
  }
  const auto correction = meta(table, "correction") == "bh" ? "Benjamini–Hochberg" : "Holm";
  title += QString("; * adjusted p ≤ 0.05 (%1)").arg(correction);
  return marks;
}

void plot_ablation(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  const auto metric = metric_label(table);
  if (table.column("best_head") >= 0) {  // all-but-one: the best lone head's delta per layer
    PlotSeries bars{"best head alone", {}, {}};
    QStringList layers;
    for (int row = 0; row < table.row_count(); ++row) {
      layers << QString("%1 (H%2)").arg(layer_label(table, row), text_at(table, row, table.column("best_head")));
      bars.y << table.number(row, table.column("delta"));
    }
    plot.showBars("Each layer with only its best head: Δ" + metric, layers, {bars}, "Δ " + metric);
    return;
  }
  if (table.column("delta_compared") >= 0) {  // Michel Figure 2: each head's Δ on the two files, one colour a layer
    QVector<PlotSeries> layers;
    for (const auto& [layer, rows] : group_rows(table, table.column("layer"))) {
      PlotSeries points{layer_label(table, rows.front()), {}, {}};
      for (int row : rows) {
        points.x << table.number(row, table.column("delta"));
        points.y << table.number(row, table.column("delta_compared"));
      }
      layers << points;
    }
    const auto file_name = [](const QString& path) { return path.section('/', -1); };
    const auto coefficient = [&](const std::string& key) { return QString::number(table.meta_number(key), 'f', 3); };
    plot.showScatter(QString("Δ%1 per head on two files: Pearson r = %2, Spearman ρ = %3")
                         .arg(metric, coefficient("pearson_r"), coefficient("spearman_rho")),
                     layers, "Δ " + metric + " on " + file_name(meta(table, "text")),
                     "Δ " + metric + " on " + file_name(meta(table, "compare_text")));
    return;
  }
  const auto ablated = layer_head_matrix(table, "delta");
  auto title = "Δ" + metric + " with one head off (baseline " + meta(table, "baseline") + ")";
  const auto marks = significance_marks(table, title);
  plot.showMatrix(title, ablated.values, "L", "H", "Δ " + metric, true, ablated.labels, marks);
}

// Activation patching: each head's normalised effect (0 = the corrupted run, 1 = the clean one),
// starred where significant; where no effect could be given, the direct logit attributions.
void plot_patching(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  const auto effects = layer_head_matrix(table, "effect");
  bool any = false;
  for (const auto& row : effects.values)
    for (double value : row) any = any || !std::isnan(value);
  const auto hook = meta(table, "hook");  // output patching at another point than z
  if (!effects.positions.isEmpty()) {  // a residual-stream point, patched position by position
    auto title = any ? QString("Restored by each layer's %1 at each position (%2 pairs)").arg(hook, meta(table, "pairs"))
                     : QString("No effect at %1: the runs do not differ reliably").arg(hook);
    const auto marks = significance_marks(table, title);
    plot.showMatrix(title, effects.values, "L", "P", "effect (0 corrupted, 1 clean)", true, effects.labels, marks);
    plot.setColumnLabels(effects.positions);
    return;
  }
  if (!any) {
    const auto dla = layer_head_matrix(table, "dla");
    plot.showMatrix("Direct logit attribution per head (no effect: the runs do not differ reliably)", dla.values, "L",
                    "H", "DLA (logit difference)", true, dla.labels);
    return;
  }
  const auto patched = meta(table, "kind") == "pattern" ? QString("pattern") : hook.isEmpty() ? QString("output") : hook;
  auto title = QString("Restored by each %1's %2 (%3 pairs)")
                   .arg(hook == "k" || hook == "v" ? "key/value head" : "head", patched, meta(table, "pairs"));
  const auto marks = significance_marks(table, title);
  plot.showMatrix(title, effects.values, "L", "H", "effect (0 corrupted, 1 clean)", true, effects.labels, marks);
}

void plot_importance(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  if (table.column("epoch") >= 0) {  // a checkpoint series: one row per head, one column per epoch
    const int epoch_col = table.column("epoch"), importance_col = table.column("importance");
    QStringList heads, epochs;
    QVector<QVector<double>> values;
    for (int row = 0; row < table.row_count(); ++row) {
      const auto head = layer_label(table, row).replace("layer ", "L") + " H" + text_at(table, row, table.column("head"));
      const auto epoch = text_at(table, row, epoch_col);
      if (!epochs.contains(epoch)) epochs << epoch;
      int index = heads.indexOf(head);
      if (index < 0) index = heads.size(), heads << head, values.append(QVector<double>());
      while (values[index].size() < epochs.indexOf(epoch)) values[index].append(NAN);
      values[index].append(table.number(row, importance_col));
    }
    plot.showMatrix("Head importance I_h over training (columns: epochs " + epochs.join(", ") + ")", values, "", "E",
                    "importance", false, heads);
    return;
  }
  const auto importance = layer_head_matrix(table, "importance");
  plot.showMatrix("Head importance I_h", importance.values, "L", "H", "importance", false, importance.labels);
}

void plot_pruning(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  if (table.column("prunable_percent") >= 0) {  // Michel §6: the share prunable per epoch checkpoint
    QVector<PlotSeries> shares;
    for (const auto& [order, rows] : group_rows(table, table.column("order"))) {
      PlotSeries curve{order + " order", {}, {}};
      for (int row : rows) {
        curve.x << table.number(row, table.column("epoch"));
        curve.y << table.number(row, table.column("prunable_percent"));
      }
      shares << curve;
    }
    plot.showCurves(QString("Heads prunable before %1 gets more than %2 % worse (Michel §6)")
                        .arg(metric_label(table), meta(table, "max_drop")),
                    shares, "epoch", "% of heads prunable");
    plot.setValueRange(0, 105);  // a share: 0 to 100 % in view (a little above, so a line at 100 % is not cut), epochs compare at a glance
    return;
  }
  QVector<PlotSeries> series;
  for (const auto& [order, rows] : group_rows(table, table.column("order"))) {
    // An order's name (importance, oracle) or, for curves of one attention kind each, the kind.
    const QString name = order == "importance" || order == "oracle" ? order + " order" : order;
    PlotSeries curve{name, {}, {}};
    // With a bootstrap, the band is the unpruned metric plus the paired 95 % interval of each delta,
    // cut at the metric's own range: BLEU near 0 with a wide interval would draw a negative BLEU.
    const auto metric_name = meta(table, "metric");
    const double lowest = metric_name == "perplexity" ? 1.0 : 0.0;
    const double highest = metric_name == "bleu" ? 100.0 : metric_name == "accuracy" ? 1.0 : INFINITY;
    const int delta_col = table.column("delta"), low_col = table.column("delta_low"), high_col = table.column("delta_high");
    const bool banded = delta_col >= 0 && low_col >= 0 && high_col >= 0;
    for (int row : rows) {
      const double metric = table.number(row, table.column("metric"));
      curve.x << table.number(row, table.column("percent_pruned"));
      curve.y << metric;
      if (!banded) continue;
      const double unpruned = metric - table.number(row, delta_col);
      curve.low << std::clamp(unpruned + table.number(row, low_col), lowest, highest);
      curve.high << std::clamp(unpruned + table.number(row, high_col), lowest, highest);
    }
    if (banded) curve.band_name = order + ": 95 % interval";
    series << curve;
  }
  plot.showCurves(input.title.isEmpty() ? QString("Pruning heads (Michel Figure 3)") : input.title, series,
                  "% of heads pruned", metric_label(table));
}

void plot_training(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  QVector<PlotSeries> curves;
  const int epoch_col = table.column("epoch"), metric_col = table.column("metric");
  // A classifier's loss is of another scale (LAMA's training loss carries an auxiliary term of ~9.6):
  // beside language models it goes on the right-hand axis, or it squashes their curves.
  bool language_models = false, classifiers = false;
  for (int row = 0; row < table.row_count(); ++row)
    (table.text(row, metric_col) == "perplexity" ? language_models : classifiers) = true;
  const bool two_axes = language_models && classifiers;
  for (const auto& [model, rows] : group_rows(table, table.column("model"))) {
    // One colour per model: training solid, validation dashed.
    const auto colour = series_colour(curves.size() / 2);
    PlotSeries train{model + ": training", {}, {}, colour}, valid{model + ": validation", {}, {}, colour, true};
    train.right_axis = valid.right_axis = two_axes && table.text(rows.front(), metric_col) != "perplexity";
    for (int row : rows) {
      train.x << table.number(row, epoch_col);
      train.y << table.number(row, table.column("train_loss"));
      valid.x << table.number(row, epoch_col);
      valid.y << table.number(row, table.column("valid_loss"));
    }
    curves << train << valid;
  }
  if (two_axes)
    plot.showCurves("Loss per epoch (Bird-Eye Figures 4–5)", curves, "epoch", "language models: cross-entropy (nats)", {},
                    "classifiers: training objective and validation loss");
  else
    plot.showCurves("Loss per epoch (Bird-Eye Figures 4–5)", curves, "epoch", "cross-entropy (nats)");
}

void plot_diagonal_sweep(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  PlotSeries curve{"diagonal × factor", {}, {}};
  QVector<ReferenceLine> references;
  // With a bootstrap, the band is the model's own metric plus the paired 95 % interval of each delta.
  const int low_col = table.column("delta_low"), high_col = table.column("delta_high");
  const bool banded = low_col >= 0 && high_col >= 0;
  const double baseline = table.meta_number("baseline");
  const bool has_baseline = !std::isnan(baseline);
  for (int row = 0; row < table.row_count(); ++row) {
    const auto factor = text_at(table, row, table.column("factor"));
    const double metric = table.number(row, table.column("metric"));
    bool numeric = false;
    const double x = factor.toDouble(&numeric);
    if (!numeric) {
      references << ReferenceLine{"DiagFreeMask", metric};
      continue;
    }
    curve.x << x, curve.y << metric;
    if (banded) curve.low << baseline + table.number(row, low_col), curve.high << baseline + table.number(row, high_col);
  }
  if (banded && has_baseline) curve.band_name = "95 % interval of the difference from the model as trained";
  else curve.low.clear(), curve.high.clear();
  plot.showCurves("Metric with the attention diagonal scaled (Bird-Eye Figure 3)", {curve}, "diagonal factor",
                  metric_label(table), references);
}

// Any table of per-head scores (`layer`, `head`, then the score: the first number column after head) as
// a layers × heads matrix: the standard plot of a new analysis that scores heads.
void plot_head_scores(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  std::string score;
  for (size_t c = table.column("head") + 1; c < table.columns().size() && score.empty(); ++c)
    if (table.columns()[c].type == ColumnType::Number || table.columns()[c].type == ColumnType::Text) score = table.columns()[c].name;
  const auto grid = layer_head_matrix(table, score);
  const auto label = QString::fromStdString(score);
  plot.showMatrix(input.title.isEmpty() ? label + " per head" : input.title, grid.values, "L", "H", label, false,
                  grid.labels);
}

// Head types: one score's layers × heads map (the one asked for, else the one the run coloured the
// heads panel by), or two scores against each other, a point per head and a colour per layer.
void plot_head_types(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  if (!input.scatter_x.empty() && !input.scatter_y.empty() && table.column(input.scatter_x) >= 0 &&
      table.column(input.scatter_y) >= 0) {
    QVector<PlotSeries> layers;
    const int layer_col = table.column("layer");
    for (const auto& [layer, rows] : group_rows(table, layer_col)) {
      PlotSeries series{"layer " + layer, {}, {}};
      for (const int row : rows) {
        const double x = table.number(row, table.column(input.scatter_x)), y = table.number(row, table.column(input.scatter_y));
        if (std::isnan(x) || std::isnan(y)) continue;
        series.x << x, series.y << y;
      }
      layers << series;
    }
    const auto x = QString::fromStdString(input.scatter_x), y = QString::fromStdString(input.scatter_y);
    plot.showScatter(y + " against " + x + " (a point per head)", layers, x, y);
    return;
  }
  auto score = !input.score.empty() ? input.score : table.meta_text("shown");
  if (table.column(score) < 0) score = "induction";
  const auto grid = layer_head_matrix(table, score);
  auto title = QString::fromStdString(score) + " per head";
  if (score == "sink" || score == "learned_sink")
    title += " (sink rate " + meta(table, "sink_rate") + " at ε = " + meta(table, "sink_epsilon") + ")";
  plot.showMatrix(title, grid.values, "L", "H", QString::fromStdString(score), false, grid.labels);
}

// LAMA Figure 4: one small plot per word, a density curve per rating, from word-weights' --summary and
// --density tables.
void plot_word_weights(ResultPlot& plot, const PlotInput& input) {
  const auto& summary = input.table;
  const auto* density = input.part("density");
  // A density over one or two weights is a spike that flattens every other curve of its plot:
  // such (word, rating) groups stay in the table only.
  QSet<QString> plotted;
  const int count_col = summary.column("count");
  for (int row = 0; row < summary.row_count(); ++row)
    if (summary.number(row, count_col) >= kMinPlottedCount)
      plotted << text_at(summary, row, summary.column("word")) + '\t' + text_at(summary, row, summary.column("label"));
  const int word_col = density ? density->column("word") : -1, label_col = density ? density->column("label") : -1,
            x_col = density ? density->column("x") : -1, density_col = density ? density->column("density") : -1;
  if (word_col < 0 || label_col < 0 || x_col < 0 || density_col < 0) {
    plot.clear("Run to see the word-weight densities");
    return;
  }
  QVector<SmallPlot> plots;
  for (int row = 0; row < density->row_count(); ++row) {
    const auto word = text_at(*density, row, word_col), label = text_at(*density, row, label_col);
    if (plots.isEmpty() || plots.back().title != word) plots << SmallPlot{word, {}};
    if (!plotted.contains(word + '\t' + label)) continue;
    auto& series = plots.back().series;
    if (series.isEmpty() || series.back().name != rating_text(label))
      series << PlotSeries{rating_text(label), {}, {}, rating_colour(label)};
    series.back().x << density->number(row, x_col);
    series.back().y << density->number(row, density_col);
  }
  for (auto& small : plots)
    if (small.series.isEmpty()) small.title += QString(" (no rating ≥ %1×)").arg(kMinPlottedCount);
  const QString title = input.title.isEmpty() ? QString("Word weights per rating (LAMA Figure 4)") : input.title;
  const QString x_label = input.x_label.isEmpty() ? QString("attention weight") : input.x_label;
  plot.showSmallMultiples(title, plots, plots.size() <= 4 ? plots.size() : 3, x_label, "density");
}

}  // namespace

const ResultTable* PlotInput::part(const std::string& name) const {
  if (!parts) return nullptr;
  const auto found = parts->find(name);
  return found == parts->end() ? nullptr : &found->second;
}

const std::vector<PlotKind>& plot_kinds() {
  static const std::vector<PlotKind> kinds = {
      {"table1", "stats", "Bird-Eye Table 1: Ratio per layer, uniform-attention reference", {{"layer"}, {"Ratio"}}, {},
       plot_table_one},
      {"ablation", "ablate", "Michel Tables 1-2: the metric's change per head (layers x heads)",
       {{"layer"}, {"delta"}, {"head", "best_head"}}, {}, plot_ablation},
      {"importance", "importance", "Michel 4.1: I_h per head (layers x heads)", {{"layer"}, {"head"}, {"importance"}}, {},
       plot_importance},
      {"pruning", "prune", "Michel Figure 3: the metric against the share of heads pruned",
       {{"order"}, {"percent_pruned", "prunable_percent"}}, {}, plot_pruning},
      {"diag-sweep", "diag-sweep", "Bird-Eye Figure 3: the metric against the diagonal factor", {{"factor"}, {"metric"}},
       {}, plot_diagonal_sweep},
      {"training", "training", "Bird-Eye Figures 4-5: loss per epoch", {{"epoch"}, {"train_loss"}}, {}, plot_training},
      {"head-scores", "importance", "any table of per-head scores: the column after head, layers x heads",
       {{"layer"}, {"head"}}, {}, plot_head_scores},
      {"patching", "patch", "activation patching: each head's normalised effect (layers x heads)",
       {{"layer"}, {"head", "position"}, {"effect"}}, {}, plot_patching},
      {"head-types", "head-types", "head types: one score per head (the one the run showed), layers x heads",
       {{"layer"}, {"head"}, {"induction"}}, {}, plot_head_types},
      {"logit-lens", "logit-lens", "the logit lens: each layer's top token per position (layers x positions)",
       {{"layer"}, {"position"}, {"token"}, {"top1"}, {"p1"}}, {}, plot_logit_lens},
      {"circuit-faithfulness", "eap --circuits-out", "edge attribution: each circuit's faithfulness against its edges",
       {{"rank"}, {"sender"}, {"receiver"}, {"score"}}, {{"circuits", "eap --circuits-out", {{"edges"}, {"faithfulness"}}}},
       plot_circuit_faithfulness},
      {"token-attribution", "token-attribution", "attribution through attention: each method's token scores as strips",
       {{"position"}, {"token"}}, {}, plot_token_strips},
      {"word-weights", "word-weights --summary", "LAMA Figure 4: weight densities per rating (--summary and --density)",
       {{"word"}, {"label"}, {"count"}},
       {{"density", "word-weights --density", {{"word"}, {"label"}, {"x"}, {"density"}}}}, plot_word_weights},
  };
  return kinds;
}

const PlotKind* find_plot_kind(const std::string& name) {
  for (const auto& kind : plot_kinds())
    if (kind.name == name) return &kind;
  return nullptr;
}

std::string missing_column(const ResultTable& table, const RequiredColumns& columns) {
  for (const auto& alternatives : columns) {
    const bool found = std::any_of(alternatives.begin(), alternatives.end(),
                                   [&](const std::string& name) { return table.column(name) >= 0; });
    if (found) continue;
    std::string names;
    for (size_t i = 0; i < alternatives.size(); ++i) names += (i ? "' or '" : "") + alternatives[i];
    return "'" + names + "'";
  }
  return {};
}

QColor rating_colour(const QString& label) {
  static const QColor five[] = {QColor(0xd7, 0x19, 0x1c), QColor(0xf0, 0x9a, 0x3e), QColor(0x8c, 0x8c, 0x8c),
                                QColor(0x74, 0xad, 0xd1), QColor(0x2c, 0x7b, 0xb6)};
  bool numeric = false;
  const int rating = label.toInt(&numeric);
  return numeric && rating >= 1 && rating <= 5 ? five[rating - 1] : QColor();
}

QString rating_text(const QString& label) {
  bool numeric = false;
  label.toInt(&numeric);
  return numeric ? label + " ★" : label;
}

}  // namespace aw
