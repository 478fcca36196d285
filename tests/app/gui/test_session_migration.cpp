// tests/app/gui/test_session_migration.cpp — sessions of the old format (app/gui/session_migration.h):
// version 1's keys mapped onto the descriptors' field names, and the bundled session as version 1 wrote it
// opening with today's settings.
#include "app/gui/analysis_tabs.h"
#include "app/gui/main_window.h"
#include "app/gui/session_file.h"
#include "app/gui/session_migration.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;

namespace {

using aw::test::kTimeoutMs;
using aw::test::kSampleData;

}  // namespace

class SessionMigrationTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // tests/fixtures/session_v1.json is the bundled session as version 1 wrote it; what it set up opens
  // with the settings the current sample_data/default_session.json gives it (both opened from one
  // folder, so their relative paths agree: the models and ../../shared are links). The current session
  // has more since (a fourth model, and the head analyses set up on it).
  void oldSessionOpensWithTheSameSettings() {
    QTemporaryDir dir;
    const QDir root(dir.path());
    QVERIFY(root.mkpath("x/a"));
    const QDir folder(root.filePath("x/a"));
    for (const auto* model : {"vanilla_lm", "bet_sf", "lama_amazon", "induction_lm"})
      QVERIFY(QFile::link(kSampleData + "/" + model, folder.filePath(model)));
    QVERIFY(QFile::link(QDir(AW_SHARED_DATA_DIR "/..").canonicalPath(), root.filePath("shared")));
    QVERIFY(QFile::copy(AW_SOURCE_DIR "/tests/fixtures/session_v1.json", folder.filePath("old.json")));
    QVERIFY(QFile::copy(kSampleData + "/default_session.json", folder.filePath("new.json")));
    const auto old_analyses = read_session(folder.filePath("old.json")).analyses;
    const auto new_analyses = read_session(folder.filePath("new.json")).analyses;
    for (auto entry = old_analyses.begin(); entry != old_analyses.end(); ++entry)
      QCOMPARE(new_analyses.value(entry.key()), entry.value());

    QJsonObject states[2];
    for (int i = 0; i < 2; ++i) {
      MainWindow window;
      window.openSession(folder.filePath(i == 0 ? "old.json" : "new.json"));
      QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
      QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
      QCOMPARE(window.modelCount(), i == 0 ? 3 : 4);
      auto* lama = window.analyses()->panel("word-weights");
      QCOMPARE(lama->findChild<QComboBox*>("part")->currentData().toString(), QString("test"));
      QCOMPARE(lama->findChild<QComboBox*>("model")->currentIndex(), 2);
      QVERIFY(QFileInfo(lama->findChild<QLineEdit*>("data")->text()).exists());
      states[i] = window.analyses()->state(folder);
    }
    for (auto entry = old_analyses.begin(); entry != old_analyses.end(); ++entry)
      QCOMPARE(QJsonDocument(states[0].value(entry.key()).toObject()).toJson(),
               QJsonDocument(states[1].value(entry.key()).toObject()).toJson());
  }

  // Every key version 1 saved, mapped onto the descriptors' field names; results are kept.
  void versionOneSettingsMigrateByFieldName() {
    const auto old = QJsonDocument::fromJson(R"({
      "table1": {"settings": {"corpus": "demo_sentences.txt", "window": 64, "batch": 8, "per_head": true,
                              "first_row": true}, "csv": "model,layer\n", "model": 0},
      "ablation": {"settings": {"model": 1, "mode": 1, "corpus": "c.txt", "window": 32, "batch": 4}},
      "importance": {"settings": {"model": 2, "normalize": false, "corpus": "", "window": 64, "batch": 8}},
      "pruning": {"settings": {"model": 0, "step": 20, "corpus": "c.txt", "window": 64, "batch": 8}},
      "top_tokens": {"settings": {"model_a": 1, "model_b": 0, "k": 5, "target": 3}},
      "diag_sweep": {"settings": {"model": 0, "factors": "0,1,mask", "corpus": "c.txt", "window": 64, "batch": 8}},
      "lama": {"settings": {"model": 2, "data": "r.tsv", "part": 3, "seed": 7, "words": "good,bad", "head": 4,
                            "scale": 1, "top": 12, "min_count": 3, "only_with_words": false}}
    })").object();
    const auto expected = QJsonDocument::fromJson(R"({
      "stats": {"settings": {"text": "demo_sentences.txt", "window": "64", "batch": "8", "per-head": true,
                             "no-first-row": false}, "csv": "model,layer\n", "model": 0},
      "ablate": {"settings": {"mode": "all-but-one", "text": "c.txt", "window": "32", "batch": "4"}, "models": [1]},
      "importance": {"settings": {"no-normalize": true, "text": "", "window": "64", "batch": "8"}, "models": [2]},
      "prune": {"settings": {"step": "20", "text": "c.txt", "window": "64", "batch": "8"}, "models": [0]},
      "top-tokens": {"settings": {"k": "5", "target": "3"}, "models": [1, 0]},
      "diag-sweep": {"settings": {"factors": "0,1,mask", "text": "c.txt", "window": "64", "batch": "8"}, "models": [0]},
      "word-weights": {"settings": {"data": "r.tsv", "part": "test", "seed": "7", "words": "good,bad", "head": "4",
                                    "scale": "length", "top": "12", "min-count": "3"}, "models": [2],
                       "only_with_words": false}
    })").object();
    QCOMPARE(migrate_analyses_v1(old), expected);
  }
};

QTEST_MAIN(SessionMigrationTests)
#include "test_session_migration.moc"
