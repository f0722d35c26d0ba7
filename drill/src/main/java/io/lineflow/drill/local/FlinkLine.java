package io.lineflow.drill.local;

import java.nio.file.Path;
import java.util.List;

/**
 * One Flink line the local cluster can run: what that Flink distribution's lib/ holds, and
 * lineflow's job jar built for it from this same tree ({@code -Dflink.line}).
 *
 * @param name the line, e.g. {@code 1.20}
 * @param flinkClasspath what the JobManagers and TaskManagers start from
 * @param jobJar the jar the drill submits on this line
 */
record FlinkLine(String name, List<String> flinkClasspath, Path jobJar) {
    String classpath() {
        return String.join(":", flinkClasspath);
    }
}
