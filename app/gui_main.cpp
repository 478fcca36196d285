// app/gui_main.cpp — attention-workbench, the desktop application.
//   attention-workbench [--sample-data DIR] [--model DIR]... [--text "..."] [--screenshot FILE.png]
// --screenshot renders the window once all work is done, writes the PNG and quits (this is how
// the window is looked at on a machine without a display: QT_QPA_PLATFORM=offscreen).
#include "app/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QTimer>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("Attention Workbench");
  QApplication::setWindowIcon(QIcon(":/attention-workbench.png"));
  QCommandLineParser parser;
  parser.setApplicationDescription("Study attention inside transformer models.");
  parser.addHelpOption();
  const QCommandLineOption sample_option("sample-data", "Folder of checkpoints to open at start.", "DIR");
  const QCommandLineOption model_option("model", "A checkpoint folder to open (repeatable).", "DIR");
  const QCommandLineOption text_option("text", "The sentence to run.", "TEXT");
  const QCommandLineOption screenshot_option("screenshot", "Write the window to a PNG when idle, then quit.", "FILE");
  parser.addOptions({sample_option, model_option, text_option, screenshot_option});
  parser.process(app);

  aw::MainWindow window;
  window.show();
  if (parser.isSet(sample_option)) window.openSampleData(parser.value(sample_option));
  for (const auto& dir : parser.values(model_option)) window.openCheckpoint(dir);
  if (parser.isSet(text_option)) window.runSentence(parser.value(text_option));

  if (parser.isSet(screenshot_option)) {
    const auto path = parser.value(screenshot_option);
    auto* poll = new QTimer(&window);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, path, poll] {
      if (window.isBusy()) return;
      poll->stop();
      window.grab().save(path);
      QApplication::quit();
    });
    poll->start(200);
  }
  return app.exec();
}
