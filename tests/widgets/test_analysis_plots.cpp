// tests/widgets/test_analysis_plots.cpp — the plotters of result tables (widgets/analysis_plots.h): LAMA
// Figure 4 drawn from word-weights' tables with its default title or the one given; pruning curves named
// by order or attention kind, with a title given or Figure 3's, their bands inside the metric's range; training losses of
// language models and classifiers on two axes, the legend under the curves; Table 1's uniform baselines
// in their models' colours, near-equal ones sharing their place in alternating dashes; a translation
// model's token strips, the target's explained position set apart.
#include "table/csv_format.h"
#include "table/result_table.h"
#include "widgets/analysis_plots.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <QTest>

using namespace aw;

class AnalysisPlotsTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // LAMA Figure 4 from word-weights' tables: its default title, or the one given (e.g. the head shown).
  void wordWeightsPlotTakesItsTitle() {
    ResultPlot plot;
    plot.resize(700, 500);
    const auto summary = read_csv("word,label,count,mean,median\ngreat,5,3,1.1,1.1\n");
    const ResultTables parts{{"density", read_csv("word,label,x,density\ngreat,5,1.0,0.5\ngreat,5,1.2,0.7\n")}};
    const auto title = [&plot] { return plot.title(); };
    const auto& draw = find_plot_kind("word-weights")->draw;
    draw(plot, PlotInput{summary, &parts, "weight × length"});
    QCOMPARE(title(), QString("Word weights per rating (LAMA Figure 4)"));
    draw(plot, PlotInput{summary, &parts, "weight × length", "head 2 of LAMA"});
    QCOMPARE(title(), QString("head 2 of LAMA"));
    QCOMPARE(plot.plot()->graphCount(), 1);
  }

  // Pruning curves: named by their order (importance, oracle) or, one attention kind each (Michel
  // Figure 4), by the kind; the title is Figure 3's unless one is given.
  void pruningPlotNamesItsCurvesAndTakesItsTitle() {
    ResultPlot plot;
    plot.resize(700, 500);
    const auto title = [&plot] { return plot.title(); };
    const auto& draw = find_plot_kind("pruning")->draw;
    draw(plot, PlotInput{read_csv("order,percent_pruned,metric\nimportance,0,10\nimportance,50,12\n")});
    QCOMPARE(title(), QString("Pruning heads (Michel Figure 3)"));
    QCOMPARE(plot.plot()->graph(0)->name(), QString("importance order"));
    draw(plot, PlotInput{read_csv("order,percent_pruned,metric\nEnc-Dec,0,30\nEnc-Dec,50,20\n"), nullptr, {}, "by kind"});
    QCOMPARE(title(), QString("by kind"));
    QCOMPARE(plot.plot()->graph(0)->name(), QString("Enc-Dec"));
  }

  // A band is the unpruned metric plus each delta's interval, cut at the metric's range: BLEU's at 0
  // and 100, accuracy's at 0 and 1; the curve itself is drawn as given.
  void pruningBandsStayInsideTheMetricsRange() {
    ResultPlot plot;
    plot.resize(700, 500);
    const auto& draw = find_plot_kind("pruning")->draw;
    draw(plot, PlotInput{read_csv("# metric=bleu\norder,percent_pruned,metric,delta,delta_low,delta_high\n"
                                  "Enc-Dec,0,28,0,0,0\nEnc-Dec,90,0.7,-27.3,-30.8,-23.6\n")});
    auto* qcp = plot.plot();
    QCOMPARE(qcp->graphCount(), 3);  // the band's lower edge, the band (its upper edge), the curve
    QCOMPARE(qcp->graph(0)->data()->at(1)->value, 0.0);  // 28 − 30.8 would be −2.8
    QCOMPARE(qcp->graph(1)->data()->at(1)->value, 28 - 23.6);
    QCOMPARE(qcp->graph(2)->data()->at(1)->value, 0.7);
    draw(plot, PlotInput{read_csv("# metric=accuracy\norder,percent_pruned,metric,delta,delta_low,delta_high\n"
                                  "importance,0,0.98,0,0,0\nimportance,50,0.97,-0.01,-0.03,0.04\n")});
    QCOMPARE(qcp->graph(1)->data()->at(1)->value, 1.0);  // 0.98 + 0.04 would be 1.02
    QCOMPARE(qcp->graph(0)->data()->at(1)->value, 0.98 - 0.03);
  }

  // Training losses: a classifier's (LAMA's objective carries an auxiliary term) go on the right-hand
  // axis beside language models' cross-entropy, which would otherwise be squashed; the legend sits
  // under the plot, where it hides no curve.
  void trainingPlotSetsClassifiersOnTheirOwnAxis() {
    ResultPlot plot;
    plot.resize(700, 500);
    const auto table = read_csv(
        "model,metric,epoch,step,train_loss,valid_loss,valid_metric\n"
        "lm,perplexity,1,10,6.2,5.4,220\nlm,perplexity,2,20,5.3,5.2,180\n"
        "lama,accuracy,1,5,10.6,0.86,0.6\nlama,accuracy,2,10,10.3,0.87,0.62\n");
    find_plot_kind("training")->draw(plot, PlotInput{table});
    auto* qcp = plot.plot();
    QCOMPARE(qcp->graphCount(), 4);
    for (int g = 0; g < qcp->graphCount(); ++g) {
      const bool classifier = qcp->graph(g)->name().startsWith("lama");
      QCOMPARE(qcp->graph(g)->valueAxis(), classifier ? qcp->yAxis2 : qcp->yAxis);
    }
    QVERIFY(qcp->yAxis2->visible());
    QVERIFY(qcp->yAxis->range().upper < 7);  // the language models' losses fill their own axis
    QCOMPARE(qcp->legend->layout(), qcp->plotLayout());  // under the plot, not over it
    QCOMPARE(qcp->legend->columnCount(), 3);  // in rows of three, each name whole
    QCOMPARE(qcp->legend->rowCount(), 2);
    // Language models alone: one axis.
    find_plot_kind("training")->draw(plot, PlotInput{read_csv("model,metric,epoch,step,train_loss,valid_loss,valid_metric\n"
                                                              "lm,perplexity,1,10,6.2,5.4,220\n")});
    QVERIFY(!qcp->yAxis2->visible());
    QCOMPARE(qcp->graph(0)->valueAxis(), qcp->yAxis);
  }

  // Table 1 of three models: each model's uniform-attention Ratio is a dashed line in its bars' colour;
  // two within a pixel or so of each other take turns in one dash pattern, both colours seen; one
  // value for every model is one "uniform attention" line.
  void tableOneBaselinesTakeTheirModelsColours() {
    ResultPlot plot;
    plot.resize(700, 500);
    const auto table = read_csv(
        "model,layer,Ratio,uniform_Ratio\n"
        "a,1,1.4,0.90\na,2,1.3,0.90\nb,1,1.2,0.901\nb,2,1.1,0.901\nc,1,1.5,0.40\nc,2,1.6,0.40\n");
    find_plot_kind("table1")->draw(plot, PlotInput{table});
    auto* qcp = plot.plot();
    QVector<QPen> bar_pens, line_pens;
    for (int p = 0; p < qcp->plottableCount(); ++p)
      if (auto* bars = qobject_cast<QCPBars*>(qcp->plottable(p))) bar_pens << QPen(bars->brush().color());
    for (int i = 0; i < qcp->itemCount(); ++i)
      if (auto* line = qobject_cast<QCPItemStraightLine*>(qcp->item(i))) line_pens << line->pen();
    QCOMPARE(bar_pens.size(), 3);
    QCOMPARE(line_pens.size(), 3);
    for (int model = 0; model < 3; ++model) QCOMPARE(line_pens[model].color(), bar_pens[model].color());
    // a and b are 0.001 apart on an axis of ~1.8: one pattern, offset by one dash; c is a plain dash.
    QCOMPARE(line_pens[0].dashPattern(), line_pens[1].dashPattern());
    QCOMPARE(line_pens[0].dashPattern().size(), 2);
    QVERIFY(line_pens[0].dashOffset() != line_pens[1].dashOffset());
    QCOMPARE(line_pens[2].style(), Qt::DashLine);
    QStringList names;
    for (int g = 0; g < qcp->graphCount(); ++g) names << qcp->graph(g)->name();
    QCOMPARE(names, QStringList({"uniform: a", "uniform: b", "uniform: c"}));
    // Every model the same baseline: one line.
    find_plot_kind("table1")->draw(plot, PlotInput{read_csv("model,layer,Ratio,uniform_Ratio\na,1,1.4,0.9\nb,1,1.2,0.9\n")});
    QCOMPARE(qcp->graphCount(), 1);
    QCOMPARE(qcp->graph(0)->name(), QString("uniform attention"));
  }

  // Token attribution on a translation model: the source's tokens, then the target's; only the target's
  // explained position is left out of the row's largest (the source's token at the same position counts).
  void tokenStripsOfATranslationModelSetTheTargetsPositionApart() {
    ResultPlot plot;
    plot.resize(700, 300);
    const auto table = read_csv("# target=chat, position=1\nside,position,token,attention\nsource,0,a,1\n"
                                "source,1,b,2\nsource,2,</s>,0.5\ntarget,0,<s>,0.4\ntarget,1,le,5\n");
    find_plot_kind("token-attribution")->draw(plot, PlotInput{table});
    QCOMPARE(plot.title(), QString("What the prediction chat at target position 1 draws on: the source, then the target"));
    QCPColorMap* map = nullptr;
    for (int p = 0; p < plot.plot()->plottableCount(); ++p)
      if (auto* found = qobject_cast<QCPColorMap*>(plot.plot()->plottable(p))) map = found;
    QVERIFY(map);
    QCOMPARE(map->data()->keySize(), 5);
    QCOMPARE(map->data()->cell(0, 0), 0.5);  // 1 of the largest 2 (source 1), not of 1
    QCOMPARE(map->data()->cell(1, 0), 1.0);
    QCOMPARE(map->data()->cell(4, 0), 1.0);  // the explained position, capped
    QCOMPARE(plot.cellToolTip(0, 4), QString("attention · le · target position 1: 5"));
    QCOMPARE(plot.cellToolTip(0, 1), QString("attention · b · source position 1: 2"));
    // A rule between the source's last token (column 3) and the target's first.
    QCPItemStraightLine* rule = nullptr;
    for (int i = 0; i < plot.plot()->itemCount(); ++i)
      if (auto* found = qobject_cast<QCPItemStraightLine*>(plot.plot()->item(i))) rule = found;
    QVERIFY(rule);
    QCOMPARE(rule->point1->coords().x(), 3.5);
  }
};

QTEST_MAIN(AnalysisPlotsTests)
#include "test_analysis_plots.moc"
