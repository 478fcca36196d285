// tests/widgets/test_export_folder.cpp — the last export's folder (widgets/export_folder.h), offscreen:
// an export from one tab's panel is where every other panel's dialog opens, kept across starts (the
// settings), the folder the window started in before any export or once the remembered one is gone.
#include "widgets/analysis_panel.h"
#include "widgets/export_folder.h"

#include <QCoreApplication>
#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;

class ExportFolderTests : public QObject {
  Q_OBJECT

  QTemporaryDir settings_;

 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("attention-workbench-tests");
    QCoreApplication::setApplicationName("test_export_folder");
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_.path());
    QSettings().clear();
  }

  void everyPanelOpensWhereTheLastExportWent() {
    QCOMPARE(suggested_export_path("attention.png"), QDir::current().filePath("attention.png"));
    AnalysisPanel ablation("ablate"), pruning("prune");
    ablation.setExportName("ablate_vanilla_lm");
    pruning.setExportName("prune_vanilla_lm");
    QTemporaryDir folder;
    remember_export(folder.filePath("ablate_vanilla_lm.csv"));  // what the Ablation tab's export does
    QCOMPARE(pruning.suggestedExportPath("csv"), QDir(folder.path()).filePath("prune_vanilla_lm.csv"));
    QCOMPARE(suggested_export_path("attention.png"), QDir(folder.path()).filePath("attention.png"));
    QCOMPARE(QSettings().value("export/folder").toString(), QFileInfo(folder.path()).absoluteFilePath());
  }

  void aFolderThatIsGoneFallsBackToTheStartFolder() {
    QString gone;
    {
      QTemporaryDir folder;
      gone = folder.path();
      remember_export(folder.filePath("a.csv"));
    }
    QVERIFY(!QDir(gone).exists());
    QCOMPARE(suggested_export_path("a.csv"), QDir::current().filePath("a.csv"));
  }
};

QTEST_MAIN(ExportFolderTests)
#include "test_export_folder.moc"
