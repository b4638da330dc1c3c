package io.stalecheck.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The atomic sections to monitor, read from the sections file (docs/sections.schema.json).
 *
 * <p>A section is over one variable ({@code class}, {@code field}): {@code general} sections have
 * one entry point (an access of the variable) and one or more end points, each with the accesses
 * other threads may make while the section runs ({@code allowed}); {@code primitive} sections are
 * the data-race sections of one access (read: only reads allowed; write: nothing allowed).
 */
final class Sections {
    /** A program location: class (dotted), method, descriptor, bytecode offset. */
    static final class Point {
        final String cls;
        final String method;
        final String desc;
        final int pc;
        final int line;

        Point(String cls, String method, String desc, int pc, int line) {
            this.cls = cls;
            this.method = method;
            this.desc = desc;
            this.pc = pc;
            this.line = line;
        }

        String key() {
            return key(cls, method, desc, pc);
        }

        static String key(String cls, String method, String desc, int pc) {
            return cls + "#" + method + desc + "@" + pc;
        }
    }

    /** One section of the file. */
    static final class Section {
        final String id;
        final boolean general;
        final String origin;
        final String varClass;
        final String varField;
        final Point entry;
        final List<Point> ends = new ArrayList<>();
        /** Per end (same order as {@link #ends}): the allowed accesses, a mask of {@link Rt#READ}/{@link Rt#WRITE}. */
        final List<Integer> allowed = new ArrayList<>();
        final Map<String, Object> finding;

        Section(String id, boolean general, String origin, String varClass, String varField, Point entry,
                Map<String, Object> finding) {
            this.id = id;
            this.general = general;
            this.origin = origin;
            this.varClass = varClass;
            this.varField = varField;
            this.entry = entry;
            this.finding = finding;
        }
    }

    final List<Section> sections = new ArrayList<>();
    /** Point key → the sections that name it (as entry or end). */
    final Map<String, List<Section>> byPoint = new HashMap<>();
    /** Internal class names named by some point. */
    final Map<String, Boolean> classes = new HashMap<>();

    static Sections empty() {
        return new Sections();
    }

    static Sections read(String path) throws IOException {
        String text = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
        try {
            return parse(text);
        } catch (IllegalArgumentException | ClassCastException | NullPointerException e) {
            throw new IOException(path + ": not a stalecheck sections file: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    static Sections parse(String text) {
        Object root = Json.parse(text);
        if (!(root instanceof Map)) {
            throw new IllegalArgumentException("the top level is not an object");
        }
        Map<String, Object> top = (Map<String, Object>) root;
        Object version = top.get("version");
        if (!(version instanceof Long) || (Long) version != 1L) {
            throw new IllegalArgumentException("`version` must be 1");
        }
        Sections s = new Sections();
        Object list = top.get("sections");
        if (!(list instanceof List)) {
            throw new IllegalArgumentException("`sections` must be an array");
        }
        int n = 0;
        for (Object o : (List<Object>) list) {
            n++;
            Map<String, Object> m = (Map<String, Object>) o;
            String id = str(m, "id", "S" + n);
            String kind = str(m, "kind", "general");
            if (!kind.equals("general") && !kind.equals("primitive")) {
                throw new IllegalArgumentException("section " + id + ": kind must be general or primitive");
            }
            Map<String, Object> var = (Map<String, Object>) m.get("variable");
            if (var == null) {
                throw new IllegalArgumentException("section " + id + ": no `variable`");
            }
            Point entry = point(id, (Map<String, Object>) m.get("entry"));
            Section sec = new Section(id, kind.equals("general"), str(m, "origin", "user"), str(var, "class", null),
                    str(var, "field", null), entry, (Map<String, Object>) m.get("finding"));
            if (sec.varClass == null || sec.varField == null) {
                throw new IllegalArgumentException("section " + id + ": variable needs class and field");
            }
            if (sec.general) {
                Object ends = m.get("ends");
                if (!(ends instanceof List) || ((List<Object>) ends).isEmpty()) {
                    throw new IllegalArgumentException("section " + id + ": a general section needs `ends`");
                }
                for (Object e : (List<Object>) ends) {
                    Map<String, Object> em = (Map<String, Object>) e;
                    sec.ends.add(point(id, em));
                    int mask = 0;
                    Object allowed = em.get("allowed");
                    if (allowed != null) {
                        for (Object a : (List<Object>) allowed) {
                            if ("read".equals(a)) {
                                mask |= Rt.READ;
                            } else if ("write".equals(a)) {
                                mask |= Rt.WRITE;
                            } else {
                                throw new IllegalArgumentException("section " + id + ": allowed is read/write, not " + a);
                            }
                        }
                    }
                    sec.allowed.add(mask);
                }
            }
            s.add(sec);
        }
        return s;
    }

    void add(Section sec) {
        sections.add(sec);
        index(sec.entry, sec);
        for (Point p : sec.ends) {
            if (!p.key().equals(sec.entry.key())) {
                index(p, sec);
            }
        }
    }

    private void index(Point p, Section sec) {
        List<Section> l = byPoint.get(p.key());
        if (l == null) {
            l = new ArrayList<>();
            byPoint.put(p.key(), l);
        }
        l.add(sec);
        classes.put(p.cls.replace('.', '/'), Boolean.TRUE);
    }

    List<Section> at(String key) {
        List<Section> l = byPoint.get(key);
        return l == null ? Collections.<Section>emptyList() : l;
    }

    private static Point point(String id, Map<String, Object> m) {
        if (m == null) {
            throw new IllegalArgumentException("section " + id + ": missing a point");
        }
        String cls = str(m, "class", null);
        String method = str(m, "method", null);
        String desc = str(m, "descriptor", null);
        Object pc = m.get("pc");
        if (cls == null || method == null || desc == null || !(pc instanceof Long)) {
            throw new IllegalArgumentException("section " + id + ": a point needs class, method, descriptor and pc");
        }
        Object line = m.get("line");
        return new Point(cls, method, desc, ((Long) pc).intValue(), line instanceof Long ? ((Long) line).intValue() : 0);
    }

    private static String str(Map<String, Object> m, String k, String dflt) {
        Object v = m.get(k);
        return v == null ? dflt : v.toString();
    }

    static Map<String, Object> orderedCopy(Map<String, Object> m) {
        return m == null ? null : new LinkedHashMap<>(m);
    }
}
