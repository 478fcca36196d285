// app/gui/main.cpp — attention-workbench, the desktop application.
//   attention-workbench [--open-session FILE | --sample-data DIR [--fresh]] [--model DIR]... [--text "..."]
//                       [--run ANALYSIS]... [--tab N] [--find TEXT] [--zoom Q1-Q2,K1-K2] [--screenshot FILE.png]
// With --sample-data the last session reopens (unless --fresh); without one, DIR's default session.
// --screenshot renders the window once all work is done, writes the PNG and quits (this is how the
// window is looked at on a machine without a display: QT_QPA_PLATFORM=offscreen).
#include "analysis/core/registry.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"
#include "app/gui/pooled_zoom.h"
#include "app/gui/session_file.h"
#include "widgets/heatmap_find_bar.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QIcon>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace {

// "Run an analysis tab once loaded: stats (Table 1), ablate (Ablation), …; the ids of older versions
// (table1, ablation, …) work too."
QString run_help() {
  QStringList tabs, legacy;
  for (const auto* descriptor : aw::AnalysisTabs::tabbed()) {
    tabs << QString("%1 (%2)").arg(QString::fromStdString(descriptor->name), QString::fromStdString(descriptor->title));
    const auto& old_id = descriptor->tab.legacy_id;
    if (!old_id.empty() && old_id != descriptor->name) legacy << QString::fromStdString(old_id);
  }
  return "Run an analysis tab once loaded: " + tabs.join(", ") + "; the ids of older versions (" + legacy.join(", ") +
         ") work too.";
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("Attention Workbench");
  QApplication::setOrganizationName("attention-workbench");
  QApplication::setWindowIcon(QIcon(":/attention-workbench.png"));
  QCommandLineParser parser;
  parser.setApplicationDescription("Study attention inside transformer models.");
  parser.addHelpOption();
  // Not "--session": QApplication takes -session/--session for X11 session management before we see it.
  const QCommandLineOption session_option("open-session", "A saved session to open.", "FILE");
  const QCommandLineOption sample_option("sample-data", "Open this sample folder's session (default_session.json).", "DIR");
  const QCommandLineOption restore_option("restore", "With --sample-data: reopen the last session instead, when there is one.");
  const QCommandLineOption fresh_option("fresh", "Without --sample-data: do not reopen the last session.");
  const QCommandLineOption model_option("model", "A checkpoint folder to open (repeatable).", "DIR");
  const QCommandLineOption text_option("text", "The sentence to run.", "TEXT");
  const QCommandLineOption run_option("run", run_help(), "ID");
  const QCommandLineOption tab_option("tab", "Show tab N (0 = Attention).", "N");
  const QCommandLineOption find_option("find", "On the Attention tab, zoom in on the first token that contains TEXT "
                                       "(as Find token does).", "TEXT");
  const QCommandLineOption zoom_option("zoom", "On the Attention tab, show queries Q1–Q2 × keys K1–K2 (tokens from 1, "
                                       "e.g. 2049-2560,1-512): a long text's at full resolution when each spans at "
                                       "most 1,024 tokens.", "Q1-Q2,K1-K2");
  const QCommandLineOption screenshot_option("screenshot", "Write the window to a PNG when idle, then quit.", "FILE");
  const QCommandLineOption size_option("size", "The window's size, e.g. 1366x768 (for screenshots).", "WxH");
  const QCommandLineOption attention_option("attention-file", "A saved attention file (attention-cli attend --out "
                                           "FILE.safetensors) to browse in a window of its own.", "FILE");
  const QCommandLineOption scale_option("scale", "The attention view's colour scale: fixed, auto, log or row.", "NAME");
  const QCommandLineOption dtype_option("dtype", "What transformer models compute in: f32, bf16, f16 (CUDA only) or auto "
                                        "(bf16 on CUDA, f32 on the CPU). A bf16 checkpoint in bf16 opens without a copy.", "NAME");
  parser.addOptions({session_option, sample_option, restore_option, fresh_option, model_option, text_option, run_option,
                     tab_option, find_option, zoom_option, screenshot_option, size_option, scale_option, attention_option, dtype_option});
  parser.process(app);
  const auto size = parser.value(size_option).split('x');
  int width = 0, height = 0;
  if (parser.isSet(size_option) &&
      (size.size() != 2 || (width = size[0].toInt()) <= 0 || (height = size[1].toInt()) <= 0)) {
    std::fprintf(stderr, "attention-workbench: --size %s: expected WIDTHxHEIGHT, e.g. 1366x768\n",
                 qPrintable(parser.value(size_option)));
    return 2;
  }
  const QStringList scale_names = {"fixed", "auto", "log", "row"};  // ColourScale's order
  const int scale = scale_names.indexOf(parser.value(scale_option));
  if (parser.isSet(scale_option) && scale < 0) {
    std::fprintf(stderr, "attention-workbench: --scale %s: expected fixed, auto, log or row\n",
                 qPrintable(parser.value(scale_option)));
    return 2;
  }

  if (parser.isSet(dtype_option) && !QStringList{"f32", "bf16", "f16", "auto"}.contains(parser.value(dtype_option))) {
    std::fprintf(stderr, "attention-workbench: --dtype %s: expected f32, bf16, f16 or auto\n",
                 qPrintable(parser.value(dtype_option)));
    return 2;
  }

  // 1-based inclusive spans "Q1-Q2,K1-K2" as 0-based tokens: x keys, y queries.
  QRect zoom_tokens;
  if (parser.isSet(zoom_option)) {
    const auto spans = parser.value(zoom_option).split(',');
    QList<int> ends;
    for (const auto& span : spans)
      for (const auto& end : span.split('-')) ends << (end.toInt() > 0 ? end.toInt() : 0);
    if (spans.size() != 2 || ends.size() != 4 || ends.contains(0) || ends[0] > ends[1] || ends[2] > ends[3]) {
      std::fprintf(stderr, "attention-workbench: --zoom %s: expected Q1-Q2,K1-K2 in tokens from 1, e.g. 2049-2560,1-512\n",
                   qPrintable(parser.value(zoom_option)));
      return 2;
    }
    zoom_tokens = QRect(QPoint(ends[2] - 1, ends[0] - 1), QPoint(ends[3] - 1, ends[1] - 1));
  }

  aw::MainWindow window;
  if (parser.isSet(dtype_option)) window.setComputeDtype(parser.value(dtype_option));
  if (width > 0) window.resize(width, height);
  window.show();
  const auto last = aw::MainWindow::lastSessionPath();
  switch (aw::start_session(parser.isSet(session_option), parser.isSet(sample_option), parser.isSet(restore_option),
                            parser.isSet(fresh_option), QFile::exists(last))) {
    case aw::StartSession::Given: window.openSession(parser.value(session_option)); break;
    case aw::StartSession::Sample: window.openSampleData(parser.value(sample_option)); break;
    case aw::StartSession::Last: window.openSession(last); break;
    case aw::StartSession::Nothing: break;
  }
  for (const auto& dir : parser.values(model_option)) window.openCheckpoint(dir);
  if (parser.isSet(text_option)) window.runSentence(parser.value(text_option));
  if (parser.isSet(attention_option)) window.openAttentionFile(parser.value(attention_option));

  // Analyses and the tab wait until the models have loaded.
  auto* once_loaded = new QTimer(&window);
  QObject::connect(once_loaded, &QTimer::timeout, &window, [&window, &parser, run_option, tab_option, find_option, once_loaded,
                                                              scale, zoom_tokens] {
    if (window.isBusy()) return;
    once_loaded->stop();
    // After the session is restored: a scale given here wins over the one it saved.
    if (scale >= 0) window.attentionView()->setColourScale(static_cast<aw::ColourScale>(scale));
    for (const auto& id : parser.values(run_option)) window.analyses()->run(id);
    if (parser.isSet(tab_option)) window.tabs()->setCurrentIndex(parser.value(tab_option).toInt());
    if (parser.isSet(find_option)) window.attentionView()->findBar()->findNext(parser.value(find_option));
    if (zoom_tokens.isValid()) window.attentionView()->pooledZoom()->showTokens(zoom_tokens);
  });
  once_loaded->start(100);

  if (parser.isSet(screenshot_option)) {
    const auto path = parser.value(screenshot_option);
    auto* poll = new QTimer(&window);
    // Idle at two polls in a row: what the last step queued (a replot after --scale) has been drawn.
    auto idle_polls = std::make_shared<int>(0);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, path, poll, once_loaded, idle_polls] {
      const bool idle = !once_loaded->isActive() && !window.isBusy();
      *idle_polls = idle ? *idle_polls + 1 : 0;
      if (*idle_polls < 2) return;
      poll->stop();
      window.grab().save(path);
      QApplication::quit();
    });
    poll->start(300);
  }
  return app.exec();
}
