package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.Set;

/** The live heap, as jcmd's class histogram counts it. */
class ClassHistogramTest {
    /** The head and tail of what JDK 17's jcmd printed for a small JVM. */
    private static final String PRINTED = """
            10884:
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:         13026         793768  [B (java.base@17.0.15)
               2:          3002         360856  java.lang.Class (java.base@17.0.15)
             869:             2            208  org.apache.flink.util.ChildFirstClassLoader
            1132:             1            104  org.apache.flink.util.FlinkUserCodeClassLoaders$ParentFirstClassLoader
             700:             1             16  sun.nio.fs.UnixFileAttributes$UnixAsBasicFileAttributes (java.base@17.0.15)
            Total         59338        2831616
            """;

    @Test
    void readsTheTotalBytes() {
        assertThat(ClassHistogram.liveBytes(PRINTED)).hasValue(2_831_616L);
    }

    /** A class's row is not the total, even the largest. */
    @Test
    void aClassRowIsNotTheTotal() {
        assertThat(ClassHistogram.liveBytes(PRINTED.replace("Total         59338        2831616\n", "")))
                .isEmpty();
    }

    /** The job classloaders alive: the rows of the classes asked for, summed; none where a class has no row. */
    @Test
    void countsTheInstancesOfTheClassesAskedFor() {
        assertThat(ClassHistogram.instances(
                        PRINTED,
                        Set.of(
                                "org.apache.flink.util.ChildFirstClassLoader",
                                "org.apache.flink.util.FlinkUserCodeClassLoaders$ParentFirstClassLoader")))
                .hasValue(3);
        assertThat(ClassHistogram.instances(PRINTED, Set.of("java.lang.Class"))).hasValue(3002);
        assertThat(ClassHistogram.instances(PRINTED, Set.of("java.lang.ClassLoader")))
                .hasValue(0);
        assertThat(ClassHistogram.instances("", Set.of("java.lang.Class"))).isEmpty();
    }

    /** What jcmd prints when it cannot attach. */
    @Test
    void noAnswerGivesNothing() {
        assertThat(ClassHistogram.liveBytes(
                        "10884:\ncom.sun.tools.attach.AttachNotSupportedException: Unable to open socket file"))
                .isEmpty();
        assertThat(ClassHistogram.liveBytes("")).isEmpty();
    }

    /** What grew between two histograms: the largest growth first, new classes included, shrunk ones left out. */
    @Test
    void growthIsTheClassesThatGrewTheMost() {
        String later = """
                10884:
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:         13000         893768  [B (java.base@17.0.15)
                   2:          2990         350000  java.lang.Class (java.base@17.0.15)
                 869:             3            312  org.apache.flink.util.ChildFirstClassLoader
                 870:            10            400  io.lineflow.Leak
                Total         59338        2831616
                """;
        assertThat(ClassHistogram.growth(PRINTED, later, 5))
                .containsExactly(
                        new ClassHistogram.Growth("[B", 100_000, -26),
                        new ClassHistogram.Growth("io.lineflow.Leak", 400, 10),
                        new ClassHistogram.Growth("org.apache.flink.util.ChildFirstClassLoader", 104, 1));
        assertThat(ClassHistogram.growth(PRINTED, later, 1)).hasSize(1);
        assertThat(ClassHistogram.growth(PRINTED, PRINTED, 5)).isEmpty();
        assertThat(ClassHistogram.growth("", later, 5)).isEmpty();
    }

    /** jstat's count of full collections, which tells whether a histogram's own collection ran. */
    @Test
    void readsTheFullCollectionsJstatCounts() {
        String printed = """
                    S0C         S1C         S0U         S1U          EC           EU           OC           OU          MC         MU       CCSC      CCSU     YGC     YGCT     FGC    FGCT     CGC    CGCT       GCT
                        0.0         0.0         0.0         0.0       8192.0          0.0      32768.0       4109.3      320.0       74.1     128.0       3.3      4     0.031    17     0.020     0     0.000     0.051
                """;
        assertThat(ClassHistogram.fullCollections(printed)).hasValue(17);
        assertThat(ClassHistogram.fullCollections("12345 not found")).isEmpty();
        assertThat(ClassHistogram.fullCollections("")).isEmpty();
    }
}
