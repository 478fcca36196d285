// app/plot/main.cpp — attention-plot: an analysis CSV written by attention-cli, drawn as the figure the
// window's analysis tab shows, saved as PNG (or PDF). This is how docs/results.md gets its figures
// (scripts/study/reproduce.sh) and how a researcher gets them for a paper, without opening the window.
//   attention-plot KIND FILE.csv --png OUT.png [--size 900x540]
//   attention-plot word-weights SUMMARY.csv --density DENSITY.csv [--scale length] [--title T] --png OUT.png
//   attention-plot pruning FILE.csv [--title T] --png OUT.png
//   attention-plot circuit-faithfulness EDGES.csv --circuits CIRCUITS.csv --png OUT.png
// It needs no display: without QT_QPA_PLATFORM it renders offscreen. No LibTorch here (widgets/ only).
#include "widgets/analysis_plots.h"
#include "table/csv_format.h"
#include "widgets/result_plot.h"

#include <QApplication>
#include <QFile>
#include <QStringList>

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The usage, with one line per plot kind of widgets/analysis_plots.h.
std::string usage() {
  std::string text =
      "usage: attention-plot KIND FILE.csv --png OUT.png [--pdf OUT.pdf] [--size 900x540]\n"
      "       attention-plot word-weights SUMMARY.csv --density DENSITY.csv [--scale length] [--title T] --png OUT.png\n"
      "       attention-plot pruning FILE.csv [--title T] --png OUT.png   (T replaces the title)\n"
      "       attention-plot circuit-faithfulness EDGES.csv --circuits CIRCUITS.csv --png OUT.png   (eap's --out, --circuits-out)\n"
      "KIND, and the attention-cli command whose --out CSV it draws:\n";
  for (const auto& kind : aw::plot_kinds()) {
    char line[256];
    const auto command = kind.command.substr(0, kind.command.find(' '));
    std::snprintf(line, sizeof line, "  %-12s %-12s %s\n", kind.name.c_str(), command.c_str(), kind.summary.c_str());
    text += line;
  }
  return text;
}

// A file read as a table of `kind`; refused when it has none, or lacks a column the kind is drawn
// from (naming the first one missing and the command that writes such a file).
aw::ResultTable read_table(const QString& path, const std::string& kind, const std::string& command,
                           const aw::RequiredColumns& columns) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    throw std::runtime_error(path.toStdString() + ": cannot open (" + file.errorString().toStdString() + ")");
  const auto table = aw::read_csv(file.readAll().toStdString());
  if (table.columns().empty() || table.rows().empty())
    throw std::runtime_error(path.toStdString() + ": no table in it (an attention-cli --out CSV has a header and rows)");
  const auto missing = aw::missing_column(table, columns);
  if (!missing.empty())
    throw std::runtime_error(path.toStdString() + ": not a " + kind + " table: it has no " + missing +
                             " column (attention-cli " + command + " writes one)");
  return table;
}

struct Arguments {
  QString kind, csv, png, pdf, density, circuits, scale = "none", title;
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
    else if (word == "--circuits") arguments.circuits = value;
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
  if (!aw::find_plot_kind(arguments.kind.toStdString()))
    throw UsageError("unknown kind '" + arguments.kind.toStdString() + "'");
  if (arguments.png.isEmpty() && arguments.pdf.isEmpty()) throw UsageError("--png or --pdf is required");
  if (arguments.kind == "word-weights" && arguments.density.isEmpty())
    throw UsageError("word-weights needs --density (word-weights --density FILE)");
  if (arguments.kind != "word-weights" && !arguments.density.isEmpty())
    throw UsageError("--density goes with word-weights only");
  if (arguments.kind == "circuit-faithfulness" && arguments.circuits.isEmpty())
    throw UsageError("circuit-faithfulness needs --circuits (eap --circuits-out FILE)");
  if (arguments.kind != "circuit-faithfulness" && !arguments.circuits.isEmpty())
    throw UsageError("--circuits goes with circuit-faithfulness only");
  if (arguments.kind != "word-weights" && arguments.kind != "pruning" && !arguments.title.isEmpty())
    throw UsageError("--title goes with word-weights and pruning only");
  if (arguments.scale != "none" && arguments.scale != "length")
    throw UsageError("--scale must be none or length, got '" + arguments.scale.toStdString() + "'");
  return arguments;
}

void draw(aw::ResultPlot& plot, const Arguments& arguments) {
  const auto& kind = *aw::find_plot_kind(arguments.kind.toStdString());
  const auto table = read_table(arguments.csv, kind.name, kind.command, kind.columns);
  aw::ResultTables parts;
  for (const auto& part : kind.parts)  // word-weights: its --density table; circuit-faithfulness: --circuits
    parts[part.name] = read_table(kind.name == "word-weights" ? arguments.density : arguments.circuits, part.name,
                                  part.option, part.columns);
  aw::PlotInput input{table, &parts, {}, {}};
  input.title = arguments.title;
  if (kind.name == "word-weights") input.x_label = arguments.scale == "length" ? "weight × length" : "attention weight";
  kind.draw(plot, input);
  if (plot.isEmpty())
    throw std::runtime_error(arguments.csv.toStdString() + ": nothing to draw" +
                             (kind.name == "word-weights" ? " (no word occurs " + std::to_string(aw::kMinPlottedCount) +
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
      std::fputs(usage().c_str(), words.size() == 1 ? stderr : stdout);
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
