// app/gui/main.cpp — attention-workbench, the desktop application.
//   attention-workbench [--open-session FILE | --sample-data DIR [--fresh]] [--model DIR]... [--text "..." | --text-file FILE]
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
#include "app/gui/visible_texts.h"
#include "widgets/heatmap_find_bar.h"

#include <QApplication>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QIcon>
#include <QLocale>
#include <QMessageBox>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <cstring>
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

// The window's options: built twice, for --help (no display needed) and for the window itself.
struct WindowOptions {
  // Not "--session": QApplication takes -session/--session for X11 session management before we see it.
  QCommandLineOption session{"open-session", "A saved session to open.", "FILE"};
  QCommandLineOption sample{"sample-data", "Open this sample folder's session (default_session.json).", "DIR"};
  QCommandLineOption restore{"restore", "With --sample-data: reopen the last session instead, when there is one."};
  QCommandLineOption fresh{"fresh", "Without --sample-data: do not reopen the last session."};
  QCommandLineOption model{"model", "A checkpoint folder to open (repeatable).", "DIR"};
  QCommandLineOption text{"text", "The sentence to run.", "TEXT"};
  QCommandLineOption text_file{"text-file", "A UTF-8 text file to run as the sentence (as File → Open text file…).", "FILE"};
  QCommandLineOption run{"run", run_help(), "ID"};
  QCommandLineOption tab{"tab", "Show tab N (0 = Attention); N.M: inner tab M of a tab of several (8.4: Circuits → Circuit view).", "N"};
  QCommandLineOption find{"find", "On the Attention tab, zoom in on the first token that contains TEXT "
                          "(as Find token does).", "TEXT"};
  QCommandLineOption zoom{"zoom", "On the Attention tab, show queries Q1–Q2 × keys K1–K2 (tokens from 1, "
                          "e.g. 2049-2560,1-512): a long text's at full resolution when each spans at "
                          "most 1,024 tokens.", "Q1-Q2,K1-K2"};
  QCommandLineOption screenshot{"screenshot", "Write the window to a PNG when idle, then quit.", "FILE"};
  QCommandLineOption size{"size", "The window's size, e.g. 1366x768 (for screenshots).", "WxH"};
  QCommandLineOption attention{"attention-file", "A saved attention file (attention-cli attend --out "
                               "FILE.safetensors) to browse in a window of its own.", "FILE"};
  QCommandLineOption scale{"scale", "The attention view's colour scale: fixed, auto, log or row.", "NAME"};
  QCommandLineOption dtype{"dtype", "What transformer models compute in: f32, bf16, f16 (CUDA only) or auto "
                           "(bf16 on CUDA, f32 on the CPU). A bf16 checkpoint in bf16 opens without a copy.", "NAME"};

  void addTo(QCommandLineParser& parser) const {
    parser.setApplicationDescription("Study attention inside transformer models.");
    parser.addHelpOption();
    parser.addOptions({session, sample, restore, fresh, model, text, text_file, run, tab, find, zoom, screenshot, size, scale,
                       attention, dtype});
  }
};

bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* help : {"-h", "--help", "-?", "--help-all"})
      if (std::strcmp(argv[i], help) == 0) return true;
  return false;
}

// Whether Qt has somewhere to open a window: a platform named (offscreen, for screenshots) or a
// display. Without one Qt aborts with a message about its xcb plugin that names neither.
bool has_display(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "-platform") == 0) return true;
  for (const char* variable : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
    if (!qEnvironmentVariableIsEmpty(variable)) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {  // help needs no display: print it from a core application
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("attention-workbench");
    QCommandLineParser parser;
    WindowOptions().addTo(parser);
    parser.process(app);  // prints the help and exits
    return 0;
  }
  if (!has_display(argc, argv)) {
    std::fprintf(stderr, "attention-workbench: no display to open the window on (DISPLAY is not set): run it in a "
                         "desktop session, or use attention-cli, or QT_QPA_PLATFORM=offscreen with --screenshot FILE.png\n");
    return 1;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName("Attention Workbench");
  QApplication::setOrganizationName("attention-workbench");
  QApplication::setWindowIcon(QIcon(":/attention-workbench.png"));
  QCommandLineParser parser;
  const WindowOptions options;
  options.addTo(parser);
  parser.process(app);
  const auto size = parser.value(options.size).split('x');
  int width = 0, height = 0;
  if (parser.isSet(options.size) &&
      (size.size() != 2 || (width = size[0].toInt()) <= 0 || (height = size[1].toInt()) <= 0)) {
    std::fprintf(stderr, "attention-workbench: --size %s: expected WIDTHxHEIGHT, e.g. 1366x768\n",
                 qPrintable(parser.value(options.size)));
    return 2;
  }
  const QStringList scale_names = {"fixed", "auto", "log", "row"};  // ColourScale's order
  const int scale = scale_names.indexOf(parser.value(options.scale));
  if (parser.isSet(options.scale) && scale < 0) {
    std::fprintf(stderr, "attention-workbench: --scale %s: expected fixed, auto, log or row\n",
                 qPrintable(parser.value(options.scale)));
    return 2;
  }

  if (parser.isSet(options.dtype) && !QStringList{"f32", "bf16", "f16", "auto"}.contains(parser.value(options.dtype))) {
    std::fprintf(stderr, "attention-workbench: --dtype %s: expected f32, bf16, f16 or auto\n",
                 qPrintable(parser.value(options.dtype)));
    return 2;
  }

  // 1-based inclusive spans "Q1-Q2,K1-K2" as 0-based tokens: x keys, y queries.
  QRect zoom_tokens;
  if (parser.isSet(options.zoom)) {
    const auto spans = parser.value(options.zoom).split(',');
    QList<int> ends;
    for (const auto& span : spans)
      for (const auto& end : span.split('-')) ends << (end.toInt() > 0 ? end.toInt() : 0);
    if (spans.size() != 2 || ends.size() != 4 || ends.contains(0) || ends[0] > ends[1] || ends[2] > ends[3]) {
      std::fprintf(stderr, "attention-workbench: --zoom %s: expected Q1-Q2,K1-K2 in tokens from 1, e.g. 2049-2560,1-512\n",
                   qPrintable(parser.value(options.zoom)));
      return 2;
    }
    zoom_tokens = QRect(QPoint(ends[2] - 1, ends[0] - 1), QPoint(ends[3] - 1, ends[1] - 1));
  }

  aw::MainWindow window;
  if (parser.isSet(options.screenshot)) window.setAutosaveEnabled(false);
  if (parser.isSet(options.dtype)) window.setComputeDtype(parser.value(options.dtype));
  if (width > 0) window.resize(width, height);
  window.show();
  aw::install_visible_text_dump(&window);  // scripts/dev/gui-walk.sh reads what is on screen
  const auto last = aw::MainWindow::lastSessionPath();
  // A window that did not close left its autosave: offer it first (not when rendering a screenshot,
  // which asks nobody; the autosave then stays for the next interactive start).
  const bool recovered = !parser.isSet(options.screenshot) && window.offerRecovery([&window](const QDateTime& saved) {
    return QMessageBox::question(&window, "Recover the last session?",
                                 QString("The last Attention Workbench window did not close (a crash or a killed "
                                         "process). Its session was autosaved at %1. Reopen it?")
                                     .arg(QLocale().toString(saved, QLocale::ShortFormat)),
                                 QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
  });
  const auto start = recovered ? aw::StartSession::Nothing
                               : aw::start_session(parser.isSet(options.session), parser.isSet(options.sample),
                                                   parser.isSet(options.restore), parser.isSet(options.fresh),
                                                   QFile::exists(last));
  switch (start) {
    case aw::StartSession::Given: window.openSession(parser.value(options.session)); break;
    case aw::StartSession::Sample: window.openSampleData(parser.value(options.sample)); break;
    case aw::StartSession::Last: window.openSession(last); break;
    case aw::StartSession::Nothing: break;
  }
  for (const auto& dir : parser.values(options.model)) window.openCheckpoint(dir);
  if (parser.isSet(options.text)) window.runSentence(parser.value(options.text));
  if (parser.isSet(options.text_file)) window.openTextFile(parser.value(options.text_file));
  if (parser.isSet(options.attention)) window.openAttentionFile(parser.value(options.attention));

  // Analyses and the tab wait until the models have loaded.
  auto* once_loaded = new QTimer(&window);
  QObject::connect(once_loaded, &QTimer::timeout, &window, [&window, &parser, &options, once_loaded,
                                                              scale, zoom_tokens] {
    if (window.isBusy()) return;
    once_loaded->stop();
    // After the session is restored: a scale given here wins over the one it saved.
    if (scale >= 0) window.attentionView()->setColourScale(static_cast<aw::ColourScale>(scale));
    for (const auto& id : parser.values(options.run)) window.analyses()->run(id);
    if (parser.isSet(options.tab)) {  // N, or N.M: a group's inner tab M (Circuits: 8.3 the Circuit view)
      const auto parts = parser.value(options.tab).split('.');
      window.tabs()->setCurrentIndex(parts[0].toInt());
      if (auto* inner = qobject_cast<QTabWidget*>(window.tabs()->currentWidget()); inner && parts.size() == 2)
        inner->setCurrentIndex(parts[1].toInt());
    }
    if (parser.isSet(options.find)) window.attentionView()->findBar()->findNext(parser.value(options.find));
    if (zoom_tokens.isValid()) window.attentionView()->pooledZoom()->showTokens(zoom_tokens);
  });
  once_loaded->start(100);

  if (parser.isSet(options.screenshot)) {
    const auto path = parser.value(options.screenshot);
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
