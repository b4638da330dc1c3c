package io.stalecheck.agent;

import io.stalecheck.agent.Model.Loc;
import io.stalecheck.agent.Model.Sec;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The entry point: {@code -javaagent:stalecheck-agent.jar=sections=FILE,out=FILE,...} (see
 * {@link Options}). Reads the sections, installs the transformer, and writes the report (JSON and
 * SARIF) when the JVM exits. A bad option or sections file stops the agent with a message on
 * stderr and leaves the program running unmonitored.
 */
public final class Agent {
    private Agent() {}

    public static void premain(String args, Instrumentation inst) {
        start(args, inst);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst);
    }

    private static void start(String args, Instrumentation inst) {
        Options opts;
        Sections sections;
        Set<String> heal = new HashSet<>();
        try {
            opts = Options.parse(args);
            sections = opts.sections == null ? Sections.empty() : Sections.read(opts.sections);
            if (opts.heal != null) {
                for (String line : Files.readAllLines(Paths.get(opts.heal), StandardCharsets.UTF_8)) {
                    String t = line.trim();
                    if (!t.isEmpty() && !t.startsWith("#")) {
                        heal.add(t);
                    }
                }
            }
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("stalecheck-agent: " + e.getMessage() + " (the agent is off for this run)");
            return;
        }
        final Report report = new Report(opts);
        Map<String, Sec> secs = new HashMap<>();
        Map<String, Integer> healedVars = new HashMap<>();
        for (Sections.Section s : sections.sections) {
            int all = Rt.READ | Rt.WRITE;
            for (int m : s.allowed) {
                all &= m;
            }
            Sec sec = new Sec(s.id, s.general, s.origin, s, s.general ? all : 0);
            sec.heal = heal.contains(s.id);
            if (sec.heal) {
                if (!s.general) {
                    System.err.println("stalecheck-agent: section " + s.id + " is primitive: only general sections are healed");
                    sec.heal = false;
                } else {
                    String v = s.varClass + "." + s.varField;
                    Integer prev = healedVars.get(v);
                    healedVars.put(v, prev == null ? all : prev & all);
                }
            }
            if (secs.put(s.id, sec) != null) {
                System.err.println("stalecheck-agent: two sections have the id " + s.id + " (the agent is off for this run)");
                return;
            }
            report.sections.add(sec);
        }
        for (String h : heal) {
            if (!secs.containsKey(h)) {
                report.notes.add("heal: no section " + h + " in the sections file");
            }
        }
        Rt.opts = opts;
        Rt.report = report;
        final String out = opts.out;
        Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
            @Override
            public void run() {
                Rt.enabled = false;
                try {
                    report.write(out);
                } catch (IOException | RuntimeException e) {
                    System.err.println("stalecheck-agent: cannot write the report " + out + ": " + e);
                }
                int n = report.size();
                if (n > 0) {
                    System.err.println("stalecheck-agent: " + n + " violation(s) observed; report " + out);
                }
            }
        }, "stalecheck-agent-report"));
        inst.addTransformer(new Transformer(opts, sections, secs, report, healedVars), false);
        Rt.enabled = true;
    }

    /** Registers an instrumented location and returns its id (the instrumented code's constant). */
    static synchronized int register(Loc l) {
        Loc[] cur = Rt.locs;
        Loc[] next = Arrays.copyOf(cur, cur.length + 1);
        l.id = cur.length;
        next[cur.length] = l;
        Rt.locs = next;
        return l.id;
    }
}
