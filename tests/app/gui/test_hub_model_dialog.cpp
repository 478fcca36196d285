// tests/app/gui/test_hub_model_dialog.cpp — File ▸ Open from the Hugging Face cache… (hub_model_dialog.h) on a
// Hub cache laid out as huggingface_hub lays it out (HF_HUB_CACHE set to a temporary folder): the cached
// models listed by name, a snapshot with a missing blob left out, Open enabled by a choice, the chosen
// snapshot opened by the window under the model's name; an empty cache says where it looked and how to fetch
// one. Drawn to hub_model_dialog.png.
#include "app/gui/attention_view.h"
#include "app/gui/hub_model_dialog.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/sample_models.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;
using aw::test::kSampleData;
using aw::test::kTimeoutMs;

namespace {

const QString kCommit = "0123456789abcdef0123456789abcdef01234567";

// `model`'s files as blobs under models--<org>--<name>, linked from refs/main's snapshot; `broken` leaves
// the first blob out (an interrupted download).
void cache_model(const QString& cache, const QString& name, const QString& model, bool broken = false) {
  const QString repository = cache + "/models--" + QString(name).replace("/", "--");
  QDir().mkpath(repository + "/blobs");
  QDir().mkpath(repository + "/refs");
  QDir().mkpath(repository + "/snapshots/" + kCommit);
  QFile ref(repository + "/refs/main");
  ref.open(QIODevice::WriteOnly);
  ref.write(kCommit.toUtf8());
  ref.close();
  int index = 0;
  for (const auto& file : QDir(model).entryInfoList(QDir::Files)) {
    const QString blob = QString("%1").arg(index, 64, 10, QChar('b'));
    if (!(broken && index == 0)) QFile::copy(file.filePath(), repository + "/blobs/" + blob);
    QFile::link("../../blobs/" + blob, repository + "/snapshots/" + kCommit + "/" + file.fileName());
    ++index;
  }
}

}  // namespace

class HubModelDialogTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void theCachedModelsAreListedAndTheChosenOneOpens() {
    QTemporaryDir dir;
    const QString cache = dir.filePath("hub");
    cache_model(cache, "aw-test/vanilla_lm", kSampleData + "/vanilla_lm");
    cache_model(cache, "aw-test/broken", kSampleData + "/bet_sf", true);
    qputenv("HF_HUB_CACHE", cache.toUtf8());
    HubModelDialog dialog;
    dialog.show();
    QCOMPARE(dialog.list()->count(), 1);
    QCOMPARE(dialog.list()->item(0)->text(), QString("aw-test/vanilla_lm"));
    QVERIFY(dialog.where()->text().contains(cache));
    auto* open = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open);
    QVERIFY(!open->isEnabled());
    QVERIFY(dialog.chosenFolder().isEmpty());
    dialog.list()->setCurrentRow(0);
    QVERIFY(open->isEnabled());
    const QString snapshot = cache + "/models--aw-test--vanilla_lm/snapshots/" + kCommit;
    QCOMPARE(dialog.chosenFolder(), snapshot);
    QVERIFY(dialog.grab().save(AW_BUILD_DIR "/hub_model_dialog.png"));

    MainWindow window;
    window.show();
    window.openCheckpoint(dialog.chosenFolder());
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QCOMPARE(window.modelCount(), 1);
    const auto* models = window.attentionView()->findChild<QComboBox*>();  // named after the model, not its commit
    QVERIFY(models && models->count() == 1);
    QVERIFY2(models->itemText(0).contains("vanilla_lm"), qPrintable(models->itemText(0)));
    qunsetenv("HF_HUB_CACHE");
  }

  void anEmptyCacheSaysWhereItLookedAndHowToFetchAModel() {
    QTemporaryDir dir;
    qputenv("HF_HUB_CACHE", dir.filePath("hub").toUtf8());
    HubModelDialog dialog;
    dialog.show();
    QCOMPARE(dialog.list()->count(), 0);
    QVERIFY(!dialog.list()->isVisible());
    QVERIFY(dialog.where()->text().contains(dir.filePath("hub")));
    QVERIFY(dialog.where()->text().contains("hf download ORG/NAME"));
    QVERIFY(dialog.grab().save(AW_BUILD_DIR "/hub_model_dialog_empty.png"));
    qunsetenv("HF_HUB_CACHE");
  }
};

QTEST_MAIN(HubModelDialogTests)
#include "test_hub_model_dialog.moc"
