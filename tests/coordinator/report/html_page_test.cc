#include "coordinator/report/html/html_page.h"

#include <string>

#include "gtest/gtest.h"

namespace noveltygrid {
namespace {

TEST(HtmlEscapeTest, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">Tom's & Jerry</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&lt;/a&gt;");
}

TEST(AbbreviateTest, CutsOnACharacterBoundary) {
  EXPECT_EQ(Abbreviate("short", 10), "short");
  EXPECT_EQ(Abbreviate("abcdef", 3), "abc...");
  // "é" is two bytes: a cut in its middle backs up before it.
  EXPECT_EQ(Abbreviate("ab\xC3\xA9z", 3), "ab...");
}

TEST(RenderTableTest, NumericCellsCarryTheirSortKey) {
  HtmlTable table;
  table.sortable = true;
  table.header = {"model", "score"};
  table.rows = {{TextCell("<m>"), NumberCell(2.5, 1)}};
  const std::string html = RenderTable(table);
  EXPECT_NE(html.find("class=\"sortable\""), std::string::npos);
  EXPECT_NE(html.find("<td>&lt;m&gt;</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\" data-v=\"2.5\">2.5</td>"), std::string::npos);
}

TEST(RenderPickerTest, ShowsTheFirstViewAndKeepsEveryViewInATemplate) {
  const std::string html = RenderPicker("question-picker", "iteration-plot", "question", "Question",
                                        {{"q1", "first", "<p>one</p>"}, {"q\"2", "second", "<p>two</p>"}});
  EXPECT_NE(html.find("<select id=\"question-picker\" data-view=\"iteration-plot\" data-name=\"question\">"),
            std::string::npos);
  EXPECT_NE(html.find("<div id=\"iteration-plot\" data-question=\"q1\"><p>one</p></div>"), std::string::npos);
  EXPECT_NE(html.find("<template data-question=\"q1\"><p>one</p></template>"), std::string::npos);
  EXPECT_NE(html.find("<template data-question=\"q&quot;2\"><p>two</p></template>"), std::string::npos);
  EXPECT_NE(html.find("<option value=\"q&quot;2\">second</option>"), std::string::npos);
  EXPECT_EQ(RenderPicker("p", "v", "k", "K", {}), "");
}

TEST(HtmlPageTest, SelfContainedPageWithSectionsAndModels) {
  HtmlPage page("Results <x>", "aidanbench", "Simulated models: ...");
  page.SetModels({"sim:a", "real/b"}, {"sim:a"});
  page.AddSection({"one", "First", "<p>1</p>"});
  page.AddSection({"two", "Second", "<p>2</p>"});
  const std::string html = page.Render();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("data-noveltygrid-report=\"1\""), std::string::npos);
  EXPECT_NE(html.find("<title>Results &lt;x&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("<li data-model=\"sim:a\" class=\"sim\">"), std::string::npos);
  EXPECT_NE(html.find("<li data-model=\"real/b\">"), std::string::npos);
  EXPECT_LT(html.find("<section id=\"one\">"), html.find("<section id=\"two\">"));
  EXPECT_NE(html.find("<a href=\"#two\">Second</a>"), std::string::npos);
  // Nothing is fetched: a policy forbids it, and no element names an outside address.
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(html.find("src=\""), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
}

}  // namespace
}  // namespace noveltygrid
