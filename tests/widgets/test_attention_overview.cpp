// tests/widgets/test_attention_overview.cpp — the overview of thumbnails (widgets/attention_overview.h)
// under QT_QPA_PLATFORM=offscreen: grouped by key/value head, clicks select a layer and head, the colour
// scale followed (pixel checked), and only the thumbnails shown rendered.
#include "tests/widgets/attention_matrices.h"
#include "widgets/attention_matrix.h"
#include "widgets/attention_overview.h"
#include "widgets/colour_scale.h"

#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>

using namespace aw;

namespace {

using aw::test::three_by_three;

}  // namespace

class AttentionOverviewTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The overview sets groups apart the same way, after the mean column; a pruned layer's groups
  // (sizes 2 and 1) follow its own heads.
  void overviewThumbnailsAreGroupedByKeyValueHead() {
    AttentionOverview overview;
    overview.resize(900, 300);
    std::vector<std::vector<AttentionMatrix>> matrices = {std::vector<AttentionMatrix>(5, three_by_three()),
                                                          std::vector<AttentionMatrix>(4, three_by_three())};
    overview.setMatrices(matrices);
    overview.setQueryGroups({{2, 2}, {2, 1}});
    const auto gap = [&](int layer, int head) {  // space left of a head's thumbnail
      return overview.thumbnailRect(layer, head).left() - overview.thumbnailRect(layer, head - 1).right();
    };
    QVERIFY(gap(0, 2) > gap(0, 1));  // heads 3–4 read the second key/value head
    QCOMPARE(gap(0, 0), gap(0, 1));  // the mean column is not a group
    QVERIFY(gap(1, 2) > gap(1, 1));
    QCOMPARE(overview.thumbnailRect(1, 2).left(), overview.thumbnailRect(0, 2).left());
  }

  // Every head of a 12 × 12 model fits a 400-pixel side panel without scrolling sideways, and a
  // narrower one wraps them; cleared
  // (after an error), the overview gives up the thumbnails' minimum size, so its placeholder is not
  // drawn clipped inside scrollbars.
  void overviewFitsTwelveHeadsAndClearsToItsPlaceholder() {
    AttentionOverview overview;
    overview.setMatrices(std::vector<std::vector<AttentionMatrix>>(12, std::vector<AttentionMatrix>(13, three_by_three())));
    QVERIFY2(overview.minimumSize().width() <= 400, qPrintable(QString::number(overview.minimumSize().width())));
    overview.resize(400, 700);
    QVERIFY(overview.thumbnailRect(11, 11).right() < 400);
    overview.clear();
    QCOMPARE(overview.minimumSize(), QSize(0, 0));
    QScrollArea scroll;
    scroll.setWidgetResizable(true);
    auto* shown = new AttentionOverview;
    shown->setMatrices(std::vector<std::vector<AttentionMatrix>>(12, std::vector<AttentionMatrix>(13, three_by_three())));
    scroll.setWidget(shown);
    scroll.resize(300, 300);
    scroll.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scroll));
    // 300 pixels are too few for 13 columns side by side: they wrap, every head in view across.
    QVERIFY(!scroll.horizontalScrollBar()->isVisible());
    QVERIFY(shown->wrapAt(shown->width()).wrapped());
    for (int head = -1; head < 12; ++head) QVERIFY(shown->thumbnailRect(11, head).right() < scroll.viewport()->width());
    QVERIFY(shown->thumbnailRect(1, -1).top() > shown->thumbnailRect(0, 11).bottom());
    shown->clear();
    QTRY_VERIFY(!scroll.horizontalScrollBar()->isVisible() && !scroll.verticalScrollBar()->isVisible());
  }

  // A 1B-class layer (32 query heads over 8 key/value heads) in a narrow panel: the heads wrap beside
  // the mean's column in bands of whole groups, so each band's thumbnails and gaps line up with the first's.
  void aGroupedOverviewWrapsWholeGroups() {
    AttentionOverview overview;
    overview.setMatrices(std::vector<std::vector<AttentionMatrix>>(2, std::vector<AttentionMatrix>(33, three_by_three())));
    overview.setQueryGroups(std::vector<std::vector<int>>(2, std::vector<int>(8, 4)));
    overview.resize(330, 600);
    const auto wrap = overview.wrapAt(overview.width());
    QVERIFY(wrap.wrapped());
    QCOMPARE(wrap.per_band % 4, 0);
    for (int head = 0; head + wrap.per_band < 32; ++head) {
      QCOMPARE(overview.thumbnailRect(1, head + wrap.per_band).left(), overview.thumbnailRect(1, head).left());
      QVERIFY(overview.thumbnailRect(1, head).left() > overview.thumbnailRect(1, -1).right());  // beside the mean
    }
    for (int head = 0; head < 32; ++head) QVERIFY(overview.thumbnailRect(1, head).right() < 330);
  }

  void overviewThumbnailClickSelectsLayerAndHead() {
    AttentionOverview overview;
    overview.resize(600, 400);
    overview.show();
    std::vector<std::vector<AttentionMatrix>> matrices(2, std::vector<AttentionMatrix>(3, three_by_three()));
    overview.setMatrices(matrices);
    QSignalSpy clicked(&overview, &AttentionOverview::thumbnailClicked);
    QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.thumbnailRect(1, 0).center());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 1);
    QCOMPARE(clicked.at(0).at(1).toInt(), 0);
    QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.thumbnailRect(0, -1).center());
    QCOMPARE(clicked.at(1).at(1).toInt(), -1);  // the mean column
  }

  // The thumbnails follow the colour scale: weights near 0.001 are one dark colour on 0–1 and spread
  // under auto; a scale change renders them again when painted, setting the same scale does not.
  void overviewThumbnailsFollowTheColourScale() {
    AttentionOverview overview;
    overview.resize(300, 200);
    overview.show();
    AttentionMatrix faint = three_by_three();
    faint.weights = {0.001f, 0.0f, 0.0f, 0.002f, 0.0005f, 0.0f, 0.003f, 0.001f, 0.0f};
    overview.setMatrices({{faint}});
    const auto pixel = [&] {  // the thumbnail's bottom-left cell (weight 0.003, the largest)
      const auto rect = overview.thumbnailRect(0, -1);
      return QColor(overview.grab().toImage().pixel(rect.left() + rect.width() / 6, rect.bottom() - rect.height() / 6));
    };
    const auto fixed = pixel();
    const int rendered = overview.renderCount();
    QCOMPARE(rendered, 1);
    overview.setColourScale(ColourScale::Auto);
    const auto automatic = pixel();
    QCOMPARE(overview.renderCount(), rendered + 1);
    QVERIFY2(automatic.lightness() > fixed.lightness() + 60,
             qPrintable(QString("%1 vs %2").arg(automatic.name(), fixed.name())));
    overview.setColourScale(ColourScale::Auto);
    pixel();
    QCOMPARE(overview.renderCount(), rendered + 1);
  }

  // A 1B-class model's overview (16 layers × mean + 32 heads) in a small scroll area renders only the
  // thumbnails it shows; scrolling renders the newly shown ones, none twice.
  void overviewRendersOnlyTheThumbnailsShown() {
    QScrollArea area;
    auto* overview = new AttentionOverview;
    area.setWidget(overview);
    area.setWidgetResizable(true);
    area.resize(400, 300);
    area.show();
    std::vector<std::vector<AttentionMatrix>> matrices(16, std::vector<AttentionMatrix>(33, three_by_three()));
    overview->setMatrices(matrices);
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    area.grab();
    const int shown = overview->renderCount(), all = 16 * 33;  // about 15 × 12 thumbnails of 22 pixels in view
    QVERIFY2(shown > 0 && shown < all / 2, qPrintable(QString::number(shown)));
    area.verticalScrollBar()->setValue(area.verticalScrollBar()->maximum());
    area.grab();
    const int after_scroll = overview->renderCount();
    QVERIFY2(after_scroll > shown && after_scroll < all, qPrintable(QString::number(after_scroll)));
    area.grab();
    QCOMPARE(overview->renderCount(), after_scroll);
  }
};

QTEST_MAIN(AttentionOverviewTests)
#include "test_attention_overview.moc"
