package io.lineflow.testing;

import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;
import org.apache.flink.util.TimeUtils;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command lines of the tools that run beside the job (the drills, the bench, {@code make
 * run}): {@code --name value} options read by Apache Commons CLI, durations in Flink's syntax.
 * The reconciler's subcommands use the same parser through their own {@code Args}.
 */
public final class CommandLines {
    private CommandLines() {}

    /**
     * The options given, by name without the dashes; every one of {@code names} takes a value.
     *
     * @throws IllegalArgumentException for an option not in {@code names} (abbreviations
     *     included), a missing value or a stray argument
     */
    public static Map<String, String> parse(List<String> args, List<String> names) {
        Options options = new Options();
        names.forEach(
                n -> options.addOption(Option.builder().longOpt(n).hasArg().build()));
        CommandLine cl;
        try {
            cl = DefaultParser.builder()
                    .setAllowPartialMatching(false)
                    .build()
                    .parse(options, args.toArray(String[]::new));
        } catch (ParseException e) {
            throw new IllegalArgumentException(e.getMessage() + "; options: --" + String.join(", --", names), e);
        }
        if (!cl.getArgList().isEmpty()) {
            throw new IllegalArgumentException("unexpected argument(s) " + cl.getArgList());
        }
        Map<String, String> given = new LinkedHashMap<>();
        for (Option o : cl.getOptions()) {
            given.put(o.getLongOpt(), o.getValue());
        }
        return given;
    }

    /** A duration in Flink's syntax ({@code 1 s}, {@code 500 ms}); the error names the option. */
    public static Duration duration(String option, String text) {
        try {
            return TimeUtils.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--" + option + " " + text + ": " + e.getMessage(), e);
        }
    }
}
