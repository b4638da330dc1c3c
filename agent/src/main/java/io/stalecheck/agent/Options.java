package io.stalecheck.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The agent's options: {@code -javaagent:stalecheck-agent.jar=KEY=VALUE,KEY=VALUE,...}.
 *
 * <p>Keys: {@code sections=FILE} (the sections file {@code stalecheck scan --sections} writes),
 * {@code mode=sections|full} (full: every non-final, non-volatile field and array element access
 * of every instrumented class is a primitive section), {@code out=FILE} (the JSON report; the
 * SARIF report is written beside it with {@code .sarif}), {@code noise=none|random|variable|location},
 * {@code targets=A|B} (the variables {@code pkg.Class.field} or locations {@code pkg.Class.method:line}
 * or section ids the focused heuristics aim at), {@code permille=N} (0..1000), {@code sleep=MS},
 * {@code seed=N}, {@code heal=FILE} (section ids, one a line), {@code healTimeout=MS},
 * {@code include=PREFIX|PREFIX} and {@code exclude=PREFIX|PREFIX} (class name prefixes, dotted).
 */
final class Options {
    enum Mode { SECTIONS, FULL }

    enum Noise { NONE, RANDOM, VARIABLE, LOCATION }

    String sections;
    Mode mode = Mode.SECTIONS;
    String out = "stalecheck-agent.json";
    Noise noise = Noise.NONE;
    List<String> targets = Collections.emptyList();
    int permille = 0;
    long sleepMs = 0;
    long seed = 0;
    boolean seedGiven;
    String heal;
    long healTimeoutMs = 1000;
    List<String> include = Collections.emptyList();
    List<String> exclude = Collections.emptyList();

    static Options parse(String text) {
        Options o = new Options();
        if (text == null || text.trim().isEmpty()) {
            return o;
        }
        for (String part : text.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("option `" + p + "` is not KEY=VALUE");
            }
            String key = p.substring(0, eq).trim();
            String value = p.substring(eq + 1).trim();
            switch (key) {
                case "sections":
                    o.sections = value;
                    break;
                case "mode":
                    if (value.equals("sections")) {
                        o.mode = Mode.SECTIONS;
                    } else if (value.equals("full")) {
                        o.mode = Mode.FULL;
                    } else {
                        throw new IllegalArgumentException("mode must be `sections` or `full`, not `" + value + "`");
                    }
                    break;
                case "out":
                    o.out = value;
                    break;
                case "noise":
                    o.noise = noise(value);
                    break;
                case "targets":
                    o.targets = list(value);
                    break;
                case "permille":
                    o.permille = (int) number(key, value, 0, 1000);
                    break;
                case "sleep":
                    o.sleepMs = number(key, value, 0, 60_000);
                    break;
                case "seed":
                    o.seed = number(key, value, Long.MIN_VALUE, Long.MAX_VALUE);
                    o.seedGiven = true;
                    break;
                case "heal":
                    o.heal = value;
                    break;
                case "healTimeout":
                    o.healTimeoutMs = number(key, value, 1, 600_000);
                    break;
                case "include":
                    o.include = list(value);
                    break;
                case "exclude":
                    o.exclude = list(value);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option `" + key + "` (known: sections, mode, out, noise, "
                            + "targets, permille, sleep, seed, heal, healTimeout, include, exclude)");
            }
        }
        if (o.mode == Mode.SECTIONS && o.sections == null) {
            throw new IllegalArgumentException("mode=sections needs sections=FILE (or use mode=full)");
        }
        if (o.noise != Noise.NONE && o.permille == 0) {
            o.permille = 100;
        }
        if ((o.noise == Noise.VARIABLE || o.noise == Noise.LOCATION) && o.targets.isEmpty()) {
            throw new IllegalArgumentException("noise=" + o.noise.name().toLowerCase() + " needs targets=A|B");
        }
        return o;
    }

    private static Noise noise(String v) {
        switch (v) {
            case "none":
                return Noise.NONE;
            case "random":
                return Noise.RANDOM;
            case "variable":
            case "var":
                return Noise.VARIABLE;
            case "location":
            case "loc":
                return Noise.LOCATION;
            default:
                throw new IllegalArgumentException("noise must be none, random, variable or location, not `" + v + "`");
        }
    }

    private static long number(String key, String v, long min, long max) {
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not a number");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(key + "=" + v + " is out of range " + min + ".." + max);
        }
        return n;
    }

    private static List<String> list(String v) {
        List<String> out = new ArrayList<>();
        for (String s : v.split("\\|")) {
            if (!s.trim().isEmpty()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
