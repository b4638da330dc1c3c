package io.stalecheck.agent;

import io.stalecheck.agent.Model.Loc;
import io.stalecheck.agent.Model.Sec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The AtomRace events the instrumented code calls ({@code before}, {@code after}, {@code exit},
 * {@code methodExit}) and the algorithm of the seed's Figures 2 and 3 behind them.
 *
 * <p>Access(v) lives in a table of slots indexed by a hash of the variable (the instance's
 * identity and the field): a slot holds an immutable {@link Access} that only compare-and-set
 * replaces, so no thread ever waits on the agent's bookkeeping (a slot taken by another variable
 * means this access is not monitored: a miss, never a false report). Suspect accesses
 * (SuspectAccess(v)) are a list inside the Access; only the owner thread removes the Access, at an
 * end point of its section, and judges the suspects then. Healing (opt-in) is the one place where
 * a thread may wait, on a healing lock, and only for a bounded time.
 */
public final class Rt {
    static final int READ = 1;
    static final int WRITE = 2;
    private static final int SLOTS = 1 << 16;
    private static final int MAX_SUSPECTS = 16;

    static volatile Loc[] locs = new Loc[0];
    static volatile boolean enabled;
    static Options opts;
    static Report report;

    private static final AtomicReferenceArray<Access> TABLE = new AtomicReferenceArray<>(SLOTS);
    static final AtomicLong COLLISIONS = new AtomicLong();
    /** Accesses that waited for a healing lock past the timeout and went on unhealed. */
    static final AtomicLong HEAL_TIMEOUTS = new AtomicLong();
    private static final AtomicLong THREADS = new AtomicLong();
    private static final ThreadLocal<TS> STATE = new ThreadLocal<TS>() {
        @Override
        protected TS initialValue() {
            return new TS();
        }
    };

    private Rt() {}

    /** Access(v): the thread in a section over v, where it entered, and the suspects so far. */
    static final class Access {
        final Thread owner;
        final Object key;
        final long fid;
        final Loc loc;
        final Sec sec;
        final Suspect suspects;
        final int n;
        final Object token;

        Access(Thread owner, Object key, long fid, Loc loc, Sec sec, Suspect suspects, int n, Object token) {
            this.owner = owner;
            this.key = key;
            this.fid = fid;
            this.loc = loc;
            this.sec = sec;
            this.suspects = suspects;
            this.n = n;
            this.token = token;
        }

        Access with(Suspect s) {
            return new Access(owner, key, fid, loc, sec, s, n + 1, token);
        }
    }

    /** An access of another thread while a section over the variable ran. */
    static final class Suspect {
        final String thread;
        final Loc loc;
        final StackTraceElement[] stack;
        final Suspect next;

        Suspect(String thread, Loc loc, StackTraceElement[] stack, Suspect next) {
            this.thread = thread;
            this.loc = loc;
            this.stack = stack;
            this.next = next;
        }
    }

    /** A section this thread is in. */
    static final class Open {
        int slot;
        Object token;
        Sec sec;
        Loc entry;
        Object key;
        long fid;
        boolean noised;
    }

    /** A healing lock taken at a method's start, released when the method returns or throws. */
    static final class Held {
        final int method;
        final ReentrantLock lock;

        Held(int method, ReentrantLock lock) {
            this.method = method;
            this.lock = lock;
        }
    }

    /** Per-thread state. */
    static final class TS {
        boolean busy;
        int pendingSlot = -1;
        Object pendingToken;
        Loc pendingLoc;
        boolean pendingNoised;
        ReentrantLock spanLock;
        final List<Open> open = new ArrayList<>(2);
        final List<Held> held = new ArrayList<>(2);
        final Random rnd;

        TS() {
            long n = THREADS.incrementAndGet();
            long seed = opts != null && opts.seedGiven ? opts.seed : System.nanoTime();
            rnd = new Random(seed * 0x9E3779B97F4A7C15L + n);
        }
    }

    // ---- the events the instrumented code calls ----

    /** beforeAccess(v, loc) of a field: {@code obj} is the instance (null for a static field). */
    public static void before(Object obj, int id) {
        if (!enabled) {
            return;
        }
        Loc l = locs[id];
        Object key = l.field.isStatic ? l.field.staticKey : obj;
        if (key == null) {
            return;
        }
        event(key, l.field.id, l);
    }

    /** beforeAccess(v, loc) of an array element. */
    public static void beforeArray(Object array, int index, int id) {
        if (!enabled || array == null) {
            return;
        }
        event(array, -1L - index, locs[id]);
    }

    /** afterAccess(v, loc). */
    public static void after(int id) {
        if (!enabled) {
            return;
        }
        TS ts = STATE.get();
        if (ts.busy) {
            return;
        }
        ts.busy = true;
        try {
            Loc l = locs[id];
            if (ts.pendingLoc == l) {
                finishPrimitive(ts);
            }
            endAt(ts, l);
            releaseSpan(ts);
        } finally {
            ts.busy = false;
        }
    }

    /** atomExit(v, loc): an end point that is no access of the variable (checked as an end). */
    public static void exit(int id) {
        if (!enabled) {
            return;
        }
        TS ts = STATE.get();
        if (ts.busy) {
            return;
        }
        ts.busy = true;
        try {
            endAt(ts, locs[id]);
        } finally {
            ts.busy = false;
        }
    }

    /** The method of {@code id} returns or throws: its sections that never reached an end are left. */
    public static void methodExit(int id) {
        if (!enabled) {
            return;
        }
        TS ts = STATE.get();
        if (ts.busy || ts.open.isEmpty() && ts.held.isEmpty()) {
            return;
        }
        ts.busy = true;
        try {
            int method = locs[id].methodId;
            for (int k = ts.open.size() - 1; k >= 0; k--) {
                Open o = ts.open.get(k);
                if (o.entry.methodId == method) {
                    ts.open.remove(k);
                    release(o.slot, o.token);
                }
            }
            // The healing locks of this invocation (the innermost ones of the method).
            for (int k = ts.held.size() - 1; k >= 0; k--) {
                Held h = ts.held.get(k);
                if (h.method != method) {
                    break;
                }
                ts.held.remove(k);
                unlock(h.lock);
            }
        } finally {
            ts.busy = false;
        }
    }

    /**
     * The start of a method where a healed section begins: takes the healing locks of its
     * fields before the method takes any lock of its own (so that a thread never waits for a
     * healing lock while it holds a monitor the holder of the healing lock needs next), held
     * until the method returns or throws.
     */
    public static void healEnter(int id) {
        if (!enabled) {
            return;
        }
        TS ts = STATE.get();
        if (ts.busy) {
            return;
        }
        ts.busy = true;
        try {
            Loc l = locs[id];
            for (int k = 0; k < l.healFields.length; k++) {
                ReentrantLock lock = l.healFields[k].healLock;
                Sec sec = l.healSecs[k];
                if (lock == null) {
                    continue;
                }
                if (acquire(lock, sec)) {
                    sec.healed.incrementAndGet();
                    ts.held.add(new Held(l.methodId, lock));
                }
            }
        } finally {
            ts.busy = false;
        }
    }

    // ---- the algorithm ----

    private static int slot(Object key, long fid) {
        int h = System.identityHashCode(key) * 0x9E3779B1 + (int) (fid ^ (fid >>> 32)) * 0x85EBCA6B;
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }

    private static void event(Object key, long fid, Loc l) {
        TS ts = STATE.get();
        if (ts.busy) {
            return;
        }
        ts.busy = true;
        try {
            if (ts.pendingLoc != null) {
                // The access of the last primitive section threw: leave that section.
                release(ts.pendingSlot, ts.pendingToken);
                ts.pendingLoc = null;
            }
            releaseSpan(ts);
            Sec entering = l.entryOf != null ? l.entryOf : l.primitive;
            ReentrantLock heal = l.field == null ? null : l.field.healLock;
            if (heal != null && (l.mode() & l.field.healAllowed) == 0 && !heal.isHeldByCurrentThread()) {
                // An access the healed sections do not allow waits for them to end (bounded).
                if (acquire(heal, null)) {
                    ts.spanLock = heal;
                }
            }
            int slot = slot(key, fid);
            Thread me = Thread.currentThread();
            StackTraceElement[] stack = null;
            for (;;) {
                Access cur = TABLE.get(slot);
                if (cur == null) {
                    if (entering == null) {
                        return; // an end point only: no section starts here
                    }
                    Access a = new Access(me, key, fid, l, entering, null, 0, new Object());
                    if (!TABLE.compareAndSet(slot, null, a)) {
                        continue;
                    }
                    entering.entered.incrementAndGet();
                    boolean noised = noise(ts, l);
                    if (noised) {
                        entering.noised.incrementAndGet();
                    }
                    if (entering.general) {
                        Open o = new Open();
                        o.slot = slot;
                        o.token = a.token;
                        o.sec = entering;
                        o.entry = l;
                        o.key = key;
                        o.fid = fid;
                        o.noised = noised;
                        ts.open.add(o);
                    } else {
                        ts.pendingSlot = slot;
                        ts.pendingToken = a.token;
                        ts.pendingLoc = l;
                        ts.pendingNoised = noised;
                    }
                    return;
                }
                if (cur.key != key || cur.fid != fid) {
                    COLLISIONS.incrementAndGet();
                    return; // the slot is another variable's: not monitored (a miss, no false report)
                }
                if (cur.owner == me) {
                    if (cur.sec.general && cur.loc == l) {
                        // Back at the entry without reaching an end (a loop): the section restarts.
                        Open o = open(ts, cur.token);
                        Access fresh = new Access(me, key, fid, l, cur.sec, null, 0, new Object());
                        if (!TABLE.compareAndSet(slot, cur, fresh)) {
                            continue;
                        }
                        if (o != null) {
                            o.token = fresh.token;
                        }
                        cur.sec.entered.incrementAndGet();
                    }
                    return; // its own section: nothing to check
                }
                if ((cur.sec.allowedAll & l.mode()) != 0 || cur.n >= MAX_SUSPECTS) {
                    return; // allowed at every end: cannot break the section
                }
                if (stack == null) {
                    stack = report.stack();
                }
                if (TABLE.compareAndSet(slot, cur, cur.with(new Suspect(me.getName(), l, stack, cur.suspects)))) {
                    return;
                }
            }
        } finally {
            ts.busy = false;
        }
    }

    private static Open open(TS ts, Object token) {
        for (Open o : ts.open) {
            if (o.token == token) {
                return o;
            }
        }
        return null;
    }

    private static void finishPrimitive(TS ts) {
        Loc l = ts.pendingLoc;
        int slot = ts.pendingSlot;
        Object token = ts.pendingToken;
        boolean noised = ts.pendingNoised;
        ts.pendingLoc = null;
        Access cur = judgeAndRelease(slot, token);
        if (cur == null) {
            return;
        }
        int bad = report(cur, l, l.primitive.allowedAll);
        if (noised && bad == 0) {
            l.primitive.noisedClean.incrementAndGet();
        }
    }

    private static void endAt(TS ts, Loc l) {
        if (ts.open.isEmpty() || l.endOf.length == 0) {
            return;
        }
        for (int k = ts.open.size() - 1; k >= 0; k--) {
            Open o = ts.open.get(k);
            for (int e = 0; e < l.endOf.length; e++) {
                if (l.endOf[e] == o.sec) {
                    ts.open.remove(k);
                    Access cur = judgeAndRelease(o.slot, o.token);
                    if (cur != null) {
                        int bad = report(cur, l, l.endMask[e]);
                        if (o.noised && bad == 0) {
                            o.sec.noisedClean.incrementAndGet();
                        }
                    }
                    break;
                }
            }
        }
    }

    /** Removes this thread's Access from its slot and returns it as it was last (with its suspects). */
    private static Access judgeAndRelease(int slot, Object token) {
        for (;;) {
            Access cur = TABLE.get(slot);
            if (cur == null || cur.token != token) {
                return null;
            }
            if (TABLE.compareAndSet(slot, cur, null)) {
                return cur;
            }
        }
    }

    private static void release(int slot, Object token) {
        judgeAndRelease(slot, token);
    }

    private static int report(Access a, Loc end, int allowed) {
        int bad = 0;
        StackTraceElement[] mine = null;
        for (Suspect s = a.suspects; s != null; s = s.next) {
            if ((s.loc.mode() & allowed) != 0) {
                continue;
            }
            if (mine == null) {
                mine = report.stack();
            }
            bad++;
            a.sec.violations.incrementAndGet();
            report.violation(a, end, Thread.currentThread().getName(), mine, s);
        }
        return bad;
    }

    private static boolean noise(TS ts, Loc l) {
        if (!l.noise || opts.permille == 0 || ts.rnd.nextInt(1000) >= opts.permille) {
            return false;
        }
        if (opts.sleepMs > 0) {
            try {
                Thread.sleep(opts.sleepMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Thread.yield();
        return true;
    }

    // ---- healing ----

    /** Takes a healing lock, waiting at most healTimeout (never a deadlock: past it, no lock). */
    private static boolean acquire(ReentrantLock lock, Sec sec) {
        if (lock.tryLock()) {
            return true;
        }
        if (sec != null) {
            sec.healWaits.incrementAndGet();
        }
        try {
            if (lock.tryLock(opts.healTimeoutMs, TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (sec != null) {
            sec.healTimeouts.incrementAndGet();
        } else {
            HEAL_TIMEOUTS.incrementAndGet();
        }
        return false;
    }

    private static void releaseSpan(TS ts) {
        if (ts.spanLock != null) {
            unlock(ts.spanLock);
            ts.spanLock = null;
        }
    }

    private static void unlock(ReentrantLock l) {
        if (l != null && l.isHeldByCurrentThread()) {
            l.unlock();
        }
    }
}
