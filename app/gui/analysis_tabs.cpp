// app/gui/analysis_tabs.cpp — see analysis_tabs.h. A new descriptor gets a tab by itself (its plot from
// its plot kind); only a tab class with extras needs a line here.
#include "app/gui/analysis_tabs.h"

#include "app/gui/head_types_tab.h"
#include "app/gui/lama_tab.h"
#include "app/gui/logit_lens_tab.h"
#include "app/gui/patching_tab.h"
#include "app/gui/settings_form.h"
#include "app/gui/top_tokens_tab.h"

#include "analysis/core/registry.h"

#include <QLineEdit>

#include <QTabWidget>

#include <algorithm>
#include <map>

namespace aw {

namespace {

template <typename Tab>
AnalysisTab* make_tab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent) {
  return new Tab(descriptor, context, parent);
}

// The tabs with more to show than a form, a table and a plot, by descriptor name; every other
// descriptor with a tab gets a plain AnalysisTab.
using TabMaker = AnalysisTab* (*)(const AnalysisDescriptor&, const TabContext&, QObject*);
const std::map<std::string, TabMaker>& tab_classes() {
  static const std::map<std::string, TabMaker> classes = {{"top-tokens", make_tab<TopTokensTab>},
                                                          {"word-weights", make_tab<LamaTab>},
                                                          {"head-types", make_tab<HeadTypesTab>},
                                                          {"patch", make_tab<PatchingTab>},
                                                          {"logit-lens", make_tab<LogitLensTab>}};
  return classes;
}

}  // namespace

std::vector<const AnalysisDescriptor*> AnalysisTabs::tabbed() {
  std::vector<const AnalysisDescriptor*> descriptors;
  for (const auto& descriptor : analysis_registry())
    if (descriptor.tab.shown) descriptors.push_back(&descriptor);
  std::stable_sort(descriptors.begin(), descriptors.end(),
                   [](const auto* a, const auto* b) { return a->tab.order < b->tab.order; });
  return descriptors;
}

QString AnalysisTabs::tabId(const QString& id) {
  for (const auto* descriptor : tabbed())
    if (id.toStdString() == descriptor->name || id.toStdString() == descriptor->tab.legacy_id)
      return QString::fromStdString(descriptor->name);
  return {};
}

AnalysisTabs::AnalysisTabs(TabContext context, QTabWidget* tabs, QObject* parent) : QObject(parent) {
  std::map<std::string, QTabWidget*> groups;
  for (const auto* descriptor : tabbed()) {
    const auto made = tab_classes().find(descriptor->name);
    auto* tab = made != tab_classes().end() ? made->second(*descriptor, context, this)
                                            : new AnalysisTab(*descriptor, context, this);
    tabs_.push_back(tab);
    if (auto* lama = qobject_cast<LamaTab*>(tab)) lama_ = lama;
    if (auto* top = qobject_cast<TopTokensTab*>(tab)) top_tokens_ = top;
    auto* host = tabs;
    if (const auto& group = descriptor->tab.group; !group.empty()) {
      auto& page = groups[group];
      if (!page) {
        page = new QTabWidget;
        page->setObjectName(QString::fromStdString(group));
        page->setDocumentMode(true);
        groups_.push_back(page);
        tabs->addTab(page, QString::fromStdString(group));
      }
      host = page;
    }
    const int index = host->addTab(tab->panel(), QString::fromStdString(descriptor->title));
    host->setTabToolTip(index, QString::fromStdString(descriptor->title + ": " + descriptor->summary));
    connect(tab, &AnalysisTab::headScores, this, &AnalysisTabs::headScores);
    connect(tab, &AnalysisTab::finished, this, [this, id = tab->id()] { Q_EMIT analysisFinished(id); });
  }
  for (auto* page : groups_) {  // the group's tooltip names its members
    QStringList members;
    for (int i = 0; i < page->count(); ++i) members << page->tabText(i).toLower();
    tabs->setTabToolTip(tabs->indexOf(page), page->objectName() + ": " + members.join(", "));
  }
}

AnalysisTabs::~AnalysisTabs() {
  cancelAll();
  for (auto* tab : tabs_) tab->waitForFinished();
}

void AnalysisTabs::setModels(const std::vector<ModelSummary>& models) {
  for (auto* tab : tabs_) tab->setModels(models);
}

void AnalysisTabs::setDefaultCorpus(const QString& path) {
  for (auto* tab : tabs_)
    if (auto* edit = qobject_cast<QLineEdit*>(tab->form()->input("text")); edit && edit->text().isEmpty())
      edit->setText(path);
}

void AnalysisTabs::refreshTargets() {
  if (top_tokens_) top_tokens_->refreshTargets();
}

void AnalysisTabs::refreshHeadsOff() {
  for (auto* tab : tabs_) tab->refreshHeadsOff();
}

AnalysisTab* AnalysisTabs::tab(const QString& id) const {
  const auto name = tabId(id);
  for (auto* tab : tabs_)
    if (tab->id() == name) return tab;
  return nullptr;
}

AnalysisPanel* AnalysisTabs::panel(const QString& id) const {
  auto* found = tab(id);
  return found ? found->panel() : nullptr;
}

AnalysisTab* AnalysisTabs::tabShowing(const QWidget* page) const {
  for (auto* group : groups_)
    if (group == page) page = group->currentWidget();
  for (auto* tab : tabs_)
    if (tab->panel() == page) return tab;
  return nullptr;
}

QTabWidget* AnalysisTabs::group(const QString& name) const {
  for (auto* page : groups_)
    if (page->objectName() == name) return page;
  return nullptr;
}

QStringList AnalysisTabs::ids() const {
  QStringList ids;
  for (auto* tab : tabs_) ids << tab->id();
  return ids;
}

void AnalysisTabs::run(const QString& id) {
  auto* found = tab(id);
  if (!found) return;
  for (auto* group : groups_)
    if (group->indexOf(found->panel()) >= 0) group->setCurrentWidget(found->panel());
  found->start();
}

bool AnalysisTabs::isRunning() const {
  for (auto* tab : tabs_)
    if (tab->isRunning()) return true;
  return false;
}

void AnalysisTabs::cancelAll() {
  for (auto* tab : tabs_) tab->cancel();
}

QJsonObject AnalysisTabs::state(const QDir& base) const {
  QJsonObject state;
  for (auto* tab : tabs_) state[tab->id()] = tab->state(base);
  return state;
}

void AnalysisTabs::restore(const QJsonObject& state, const QDir& base) {
  for (auto* tab : tabs_)
    if (state.contains(tab->id())) tab->restore(state[tab->id()].toObject(), base);
  refreshTargets();
}

void AnalysisTabs::clearResults() {
  for (auto* tab : tabs_) tab->clearResult();
}

}  // namespace aw
