package io.lineflow.drill.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.TimeChart.Mark;
import io.lineflow.drill.core.TimeChart.Point;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;
import javax.xml.parsers.DocumentBuilderFactory;

/**
 * The chart of the drill and soak reports, read back as XML: where a sample, a mark and the shaded
 * span land on the 900×220 plot (the plot area 70–880 across, 14–190 down), its scale and its
 * minute ticks.
 */
class TimeChartTest {
    private static final long T0 = 1_796_000_000_000L;
    private static final DoubleFunction<String> ROWS = max -> Math.round(max) + " rows/s";

    /** {@code minutes} after {@link #T0}, in epoch ms. */
    private static long t(double minutes) {
        return T0 + Math.round(minutes * 60_000);
    }

    private static Document svg(Map<String, List<Point>> lines, long to, List<Mark> marks, long shadeFrom) {
        String svg = TimeChart.svg(lines, T0, to, marks, shadeFrom, ROWS);
        try {
            return DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(new InputSource(new StringReader(svg)));
        } catch (Exception e) {
            throw new AssertionError("not well-formed: " + svg, e);
        }
    }

    private static List<Element> elements(Document d, String tag) {
        NodeList nodes = d.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add((Element) nodes.item(i));
        }
        return out;
    }

    private static List<String> texts(Document d) {
        return elements(d, "text").stream().map(Element::getTextContent).toList();
    }

    @Test
    void aSampleLandsByItsTimeAndItsValueOnAZeroBasedAxisWithHeadroom() {
        Document d = svg(
                Map.of("rows", List.of(new Point(t(0), 0), new Point(t(5), 50), new Point(t(10), 100))),
                t(10),
                List.of(),
                Long.MAX_VALUE);

        assertThat(elements(d, "polyline"))
                .singleElement()
                .satisfies(l -> assertThat(l.getAttribute("points").trim())
                        .as("x: 70 + 810 × elapsed/span; y: 190 − 176 × value/(1.05 × 100)")
                        .isEqualTo("70.0,190.0 475.0,106.2 880.0,22.4"));
        assertThat(texts(d)).startsWith("105 rows/s", "0");
    }

    @Test
    void coordinatesHaveADecimalPointWhateverTheDefaultLocale() {
        Locale before = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try {
            Document d = svg(
                    Map.of("rows", List.of(new Point(t(0), 0), new Point(t(5), 50))),
                    t(10),
                    List.of(new Mark(t(2.5), "tm-kill")),
                    t(6));

            assertThat(elements(d, "polyline").get(0).getAttribute("points").trim())
                    .isEqualTo("70.0,190.0 475.0,22.4");
            assertThat(elements(d, "rect").get(0).getAttribute("x")).isEqualTo("556.0");
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void aSampleThatIsNotAFiniteNumberIsLeftOutAndSpoilsNeitherTheLinesNorTheScale() {
        Map<String, List<Point>> lines = new LinkedHashMap<>();
        lines.put(
                "lag",
                List.of(
                        new Point(t(0), 10),
                        new Point(t(1), Double.NaN),
                        new Point(t(2), Double.POSITIVE_INFINITY),
                        new Point(t(3), 20)));
        lines.put("rows", List.of(new Point(t(0), 5)));

        Document d = svg(lines, t(10), List.of(), Long.MAX_VALUE);

        assertThat(elements(d, "polyline"))
                .extracting(l -> l.getAttribute("points").trim())
                .containsExactly("70.0,106.2 313.0,22.4", "70.0,148.1");
        assertThat(texts(d)).startsWith("21 rows/s");
    }

    @Test
    void aChartOfZerosStillHasAScale() {
        Document d =
                svg(Map.of("lag", List.of(new Point(t(0), 0), new Point(t(1), 0))), t(1), List.of(), Long.MAX_VALUE);

        assertThat(texts(d)).startsWith("1 rows/s", "0");
        assertThat(elements(d, "polyline").get(0).getAttribute("points").trim()).isEqualTo("70.0,190.0 880.0,190.0");
    }

    @Test
    void marksAreNumberedDashedLinesAtTheirTimeNamedInTheirTooltip() {
        Document d = svg(
                Map.of("rows", List.of(new Point(t(0), 1))),
                t(10),
                List.of(new Mark(t(2.5), "tm-kill <pod 1>"), new Mark(t(5), "s3-outage & back")),
                Long.MAX_VALUE);

        List<Element> dashed = elements(d, "line").stream()
                .filter(l -> l.hasAttribute("stroke-dasharray"))
                .toList();
        assertThat(dashed).extracting(l -> l.getAttribute("x1")).containsExactly("272.5", "475.0");
        assertThat(dashed).extracting(l -> l.getAttribute("x2")).containsExactly("272.5", "475.0");
        assertThat(elements(d, "title"))
                .extracting(Element::getTextContent)
                .containsExactly("tm-kill <pod 1>", "s3-outage & back");
        assertThat(texts(d)).contains("1", "2");
    }

    @Test
    void theSpanFromShadeFromOnIsShadedAndNothingWhenItStartsAtTheEnd() {
        Map<String, List<Point>> lines = Map.of("rows", List.of(new Point(t(0), 1)));

        assertThat(elements(svg(lines, t(10), List.of(), t(6)), "rect"))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.getAttribute("x")).isEqualTo("556.0");
                    assertThat(r.getAttribute("width")).isEqualTo("324.0");
                });
        assertThat(elements(svg(lines, t(10), List.of(), T0 - 60_000), "rect"))
                .as("from before the chart's start: all of it")
                .singleElement()
                .satisfies(r -> assertThat(r.getAttribute("x")).isEqualTo("70.0"));
        assertThat(elements(svg(lines, t(10), List.of(), t(10)), "rect")).isEmpty();
        assertThat(elements(svg(lines, t(10), List.of(), Long.MAX_VALUE), "rect"))
                .isEmpty();
    }

    @Test
    void minutesAreTickedEveryMinuteUpToTenThenEveryFiveUpToThirtyThenEveryTen() {
        Map<String, List<Point>> lines = Map.of("rows", List.of(new Point(t(0), 1)));

        assertThat(texts(svg(lines, t(10), List.of(), Long.MAX_VALUE)))
                .filteredOn(s -> s.endsWith(" min"))
                .containsExactly(
                        "0 min", "1 min", "2 min", "3 min", "4 min", "5 min", "6 min", "7 min", "8 min", "9 min",
                        "10 min");
        assertThat(texts(svg(lines, t(30), List.of(), Long.MAX_VALUE)))
                .filteredOn(s -> s.endsWith(" min"))
                .containsExactly("0 min", "5 min", "10 min", "15 min", "20 min", "25 min", "30 min");
        assertThat(texts(svg(lines, t(45), List.of(), Long.MAX_VALUE)))
                .filteredOn(s -> s.endsWith(" min"))
                .containsExactly("0 min", "10 min", "20 min", "30 min", "40 min");
    }

    @Test
    void eachLineHasTheColourItsLegendGivesIt() {
        Map<String, List<Point>> lines = new LinkedHashMap<>();
        for (int i = 0; i < TimeChart.COLOURS.size() + 1; i++) {
            lines.put("line " + i + (i == 0 ? " <a & b>" : ""), List.of(new Point(t(0), i)));
        }

        assertThat(elements(svg(lines, t(1), List.of(), Long.MAX_VALUE), "polyline"))
                .extracting(l -> l.getAttribute("stroke"))
                .startsWith(TimeChart.COLOURS.toArray(String[]::new))
                .endsWith(TimeChart.COLOURS.get(0));
        assertThat(TimeChart.legend(lines.keySet()))
                .startsWith("<p class=legend><span style=\"color:#1f6feb\">■ line 0 &lt;a &amp; b&gt;</span> "
                        + "<span style=\"color:#e8590c\">■ line 1</span> ")
                .endsWith("<span style=\"color:#1f6feb\">■ line 7</span> </p>");
    }
}
