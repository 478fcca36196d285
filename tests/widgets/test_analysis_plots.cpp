// tests/widgets/test_analysis_plots.cpp — the plotters of result tables (widgets/analysis_plots.h): LAMA
// Figure 4 drawn from word-weights' tables with its default title or the one given.
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
    const auto title = [&plot] { return qobject_cast<QCPTextElement*>(plot.plot()->plotLayout()->element(0, 0))->text(); };
    const auto& draw = find_plot_kind("word-weights")->draw;
    draw(plot, PlotInput{summary, &parts, "weight × length"});
    QCOMPARE(title(), QString("Word weights per rating (LAMA Figure 4)"));
    draw(plot, PlotInput{summary, &parts, "weight × length", "head 2 of LAMA"});
    QCOMPARE(title(), QString("head 2 of LAMA"));
    QCOMPARE(plot.plot()->graphCount(), 1);
  }
};

QTEST_MAIN(AnalysisPlotsTests)
#include "test_analysis_plots.moc"
