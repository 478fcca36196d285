// app/plot/main.cpp — attention-plot: an analysis CSV written by attention-cli, drawn as the figure the
// window's analysis tab shows, saved as PNG (or PDF). This is how docs/results.md gets its figures
// (scripts/reproduce.sh) and how a researcher gets them for a paper, without opening the window.
//   attention-plot KIND FILE.csv --png OUT.png [--size 900x540]
//   attention-plot word-weights SUMMARY.csv --density DENSITY.csv [--scale length] [--title T] --png OUT.png
// It needs no display: without QT_QPA_PLATFORM it renders offscreen. No LibTorch here (widgets/ only).
#include "widgets/analysis_plots.h"
#include "widgets/csv_table.h"
#include "widgets/result_plot.h"

#include <QApplication>
#include <QFile>
#include <QStringList>

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr const char* kUsage =
    "usage: attention-plot KIND FILE.csv --png OUT.png [--pdf OUT.pdf] [--size 900x540]\n"
    "       attention-plot word-weights SUMMARY.csv --density DENSITY.csv [--scale length] [--title T] --png OUT.png\n"
    "KIND, and the attention-cli command whose --out CSV it draws:\n"
    "  table1       stats        Bird-Eye Table 1: Ratio per layer, uniform-attention reference\n"
    "  ablation     ablate       Michel Tables 1-2: the metric's change per head (layers x heads)\n"
    "  importance   importance   Michel 4.1: I_h per head (layers x heads)\n"
    "  pruning      prune        Michel Figure 3: the metric against the share of heads pruned\n"
    "  diag-sweep   diag-sweep   Bird-Eye Figure 3: the metric against the diagonal factor\n"
    "  training     training     Bird-Eye Figures 4-5: loss per epoch\n"
    "  word-weights word-weights LAMA Figure 4: weight densities per rating (--summary and --density)\n";

using Plotter = std::function<void(aw::ResultPlot&, const aw::CsvTable&)>;

struct Kind {
  Plotter draw;
  const char* command;                 // the attention-cli command whose CSV it draws
  std::vector<QStringList> columns;    // each entry: one of these columns must be there
};

const std::map<std::string, Kind>& kinds() {
  static const std::map<std::string, Kind> table = {
      {"table1", {aw::plot_table_one, "stats", {{"layer"}, {"Ratio"}}}},
      {"ablation", {aw::plot_ablation, "ablate", {{"layer"}, {"delta"}, {"head", "best_head"}}}},
      {"importance", {aw::plot_importance, "importance", {{"layer"}, {"head"}, {"importance"}}}},
      {"pruning", {aw::plot_pruning, "prune", {{"order"}, {"percent_pruned", "prunable_percent"}}}},
      {"diag-sweep", {aw::plot_diagonal_sweep, "diag-sweep", {{"factor"}, {"metric"}}}},
      {"training", {aw::plot_training, "training", {{"epoch"}, {"train_loss"}}}},
      {"word-weights", {nullptr, "word-weights --summary", {{"word"}, {"label"}, {"count"}}}},
      {"density", {nullptr, "word-weights --density", {{"word"}, {"label"}, {"x"}, {"density"}}}}};
  return table;
}

// A table without the columns its kind is drawn from is refused, naming the first one missing.
void require_columns(const aw::CsvTable& table, const QString& path, const std::string& kind) {
  const auto& spec = kinds().at(kind);
  for (const auto& alternatives : spec.columns) {
    const bool found = std::any_of(alternatives.begin(), alternatives.end(),
                                   [&](const QString& name) { return table.column(name) >= 0; });
    if (!found)
      throw std::runtime_error(path.toStdString() + ": not a " + kind + " table: it has no '" +
                               alternatives.join("' or '").toStdString() + "' column (attention-cli " +
                               spec.command + " writes one)");
  }
}

aw::CsvTable read_table(const QString& path, const std::string& kind) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    throw std::runtime_error(path.toStdString() + ": cannot open (" + file.errorString().toStdString() + ")");
  const auto table = aw::parse_csv(QString::fromUtf8(file.readAll()));
  if (table.header.isEmpty() || table.rows.isEmpty())
    throw std::runtime_error(path.toStdString() + ": no table in it (an attention-cli --out CSV has a header and rows)");
  require_columns(table, path, kind);
  return table;
}

struct Arguments {
  QString kind, csv, png, pdf, density, scale = "none", title;
  int width = 900, height = 540;
};

Arguments parse_arguments(const QStringList& words) {
  Arguments arguments;
  QStringList positional;
  for (int i = 1; i < words.size(); ++i) {
    const auto& word = words[i];
    if (!word.startsWith("--")) {
      positional << word;
      continue;
    }
    if (i + 1 >= words.size()) throw UsageError(word.toStdString() + " needs a value");
    const auto value = words[++i];
    if (word == "--png") arguments.png = value;
    else if (word == "--pdf") arguments.pdf = value;
    else if (word == "--density") arguments.density = value;
    else if (word == "--scale") arguments.scale = value;
    else if (word == "--title") arguments.title = value;
    else if (word == "--size") {
      const auto parts = value.split('x');
      bool width_ok = false, height_ok = false;
      if (parts.size() == 2) arguments.width = parts[0].toInt(&width_ok), arguments.height = parts[1].toInt(&height_ok);
      if (!width_ok || !height_ok || arguments.width < 200 || arguments.height < 150 || arguments.width > 8000 ||
          arguments.height > 8000)
        throw UsageError("--size must be WIDTHxHEIGHT between 200x150 and 8000x8000, got '" + value.toStdString() + "'");
    } else {
      throw UsageError("unknown option " + word.toStdString());
    }
  }
  if (positional.size() != 2) throw UsageError("give a KIND and one CSV file");
  arguments.kind = positional[0], arguments.csv = positional[1];
  if (arguments.kind == "density" || !kinds().count(arguments.kind.toStdString()))
    throw UsageError("unknown kind '" + arguments.kind.toStdString() + "'");
  if (arguments.png.isEmpty() && arguments.pdf.isEmpty()) throw UsageError("--png or --pdf is required");
  if (arguments.kind == "word-weights" && arguments.density.isEmpty())
    throw UsageError("word-weights needs --density (word-weights --density FILE)");
  if (arguments.kind != "word-weights" && !arguments.density.isEmpty())
    throw UsageError("--density goes with word-weights only");
  if (arguments.kind != "word-weights" && !arguments.title.isEmpty())
    throw UsageError("--title goes with word-weights only");
  if (arguments.scale != "none" && arguments.scale != "length")
    throw UsageError("--scale must be none or length, got '" + arguments.scale.toStdString() + "'");
  return arguments;
}

void draw(aw::ResultPlot& plot, const Arguments& arguments) {
  const auto kind = arguments.kind.toStdString();
  const auto table = read_table(arguments.csv, kind);
  if (kind == "word-weights")
    aw::plot_word_weights(plot, table, read_table(arguments.density, "density"),
                          arguments.scale == "length" ? "weight × length" : "attention weight", arguments.title);
  else
    kinds().at(kind).draw(plot, table);
  if (plot.isEmpty())
    throw std::runtime_error(arguments.csv.toStdString() + ": nothing to draw" +
                             (kind == "word-weights" ? " (no word occurs " + std::to_string(aw::kMinPlottedCount) +
                                                           " or more times under one label)"
                                                     : std::string(" (no plottable rows)")));
}

void save(aw::ResultPlot& plot, const Arguments& arguments) {
  // Written to a temporary name and renamed, so a failed save leaves no half-written figure.
  const auto write = [&](const QString& path, const std::function<bool(const QString&)>& writer) {
    if (path.isEmpty()) return;
    const auto partial = path + ".partial";
    if (!writer(partial) || !QFile::exists(partial)) {
      QFile::remove(partial);
      throw std::runtime_error(path.toStdString() + ": cannot be written");
    }
    QFile::remove(path);
    if (!QFile::rename(partial, path)) {
      QFile::remove(partial);
      throw std::runtime_error(path.toStdString() + ": cannot be written");
    }
  };
  write(arguments.png, [&](const QString& path) {
    return plot.plot()->savePng(path, arguments.width, arguments.height, 2.0);
  });
  write(arguments.pdf, [&](const QString& path) {
    return plot.plot()->savePdf(path, arguments.width, arguments.height);
  });
}

// Qt's own warnings about a display-less session (no XDG_RUNTIME_DIR) say nothing about the figure.
void quiet_platform_warnings(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtWarningMsg && message.startsWith("QStandardPaths:")) return;
  std::fprintf(stderr, "%s\n", qPrintable(message));
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  qInstallMessageHandler(quiet_platform_warnings);
  QApplication app(argc, argv);
  try {
    const auto words = QApplication::arguments();
    if (words.size() == 1 || words.contains("--help") || words.contains("-h")) {
      std::fputs(kUsage, words.size() == 1 ? stderr : stdout);
      return words.size() == 1 ? 2 : 0;
    }
    const auto arguments = parse_arguments(words);
    aw::ResultPlot plot;
    plot.resize(arguments.width, arguments.height);
    draw(plot, arguments);
    save(plot, arguments);
    return 0;
  } catch (const UsageError& error) {
    std::fprintf(stderr, "error: attention-plot: %s (attention-plot --help: the kinds and options)\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: attention-plot: %s\n", error.what());
    return 1;
  }
}
