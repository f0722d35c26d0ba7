package io.lineflow.reconciler.cli;

import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A subcommand's command line, parsed by Apache Commons CLI (as every command line of the
 * project): named options, repeated {@code --set key=value}, and positionals. An option the
 * command does not declare, or an abbreviation of one, is an error.
 */
public final class Args {

    /** Thrown for a command line a person must fix. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }

    private static final String SET = "set";

    private final CommandLine line;
    final Map<String, String> settings = new LinkedHashMap<>();
    final List<String> positionals;

    private Args(CommandLine line) {
        this.line = line;
        this.positionals = line.getArgList();
        String[] kvs = line.getOptionValues(SET);
        for (String kv : kvs == null ? new String[0] : kvs) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--set needs key=value, got '" + kv + "'");
            }
            settings.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
    }

    /**
     * @param valued options that take a value ({@code --name value})
     * @param flags options without one ({@code --name})
     */
    public static Args parse(String[] argv, Set<String> valued, Set<String> flags) {
        Options options = new Options();
        options.addOption(Option.builder().longOpt(SET).hasArg().build());
        valued.forEach(
                n -> options.addOption(Option.builder().longOpt(n).hasArg().build()));
        flags.forEach(n -> options.addOption(Option.builder().longOpt(n).build()));
        try {
            return new Args(DefaultParser.builder()
                    .setAllowPartialMatching(false)
                    .build()
                    .parse(options, argv));
        } catch (ParseException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The repeated {@code --set key=value} settings. */
    public Map<String, String> settings() {
        return settings;
    }

    /** A named option that must be given. */
    public String require(String name) {
        String v = get(name);
        if (v == null) {
            throw new UsageException("--" + name + " is required");
        }
        return v;
    }

    String get(String name) {
        return line.getOptionValue(name);
    }

    public String get(String name, String fallback) {
        return line.getOptionValue(name, fallback);
    }

    boolean flag(String name) {
        return line.hasOption(name);
    }
}
