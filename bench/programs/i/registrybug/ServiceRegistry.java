package registrybug;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A registry of services indexed both by name and by id.
 *
 * <p>This class is thread-safe. The two indexes and the id counter are guarded by one
 * {@link ReentrantReadWriteLock}: lookups share the read lock and mutations take the write
 * lock.
 */
public final class ServiceRegistry {
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final Lock readLock = rw.readLock();
    private final Lock writeLock = rw.writeLock();
    private final Map<String, Service> byName = new HashMap<>(); // guarded by rw
    private final Map<Long, Service> byId = new HashMap<>(); // guarded by rw
    private long lastId; // guarded by rw

    /** Registers a service under a new id; returns the existing one if the name is taken. */
    public Service register(String name, String endpoint) {
        Service s;
        writeLock.lock();
        try {
            Service existing = byName.get(name);
            if (existing != null) return existing;
            s = new Service(++lastId, name, endpoint);
            byName.put(name, s);
        } finally {
            writeLock.unlock();
        }
        writeLock.lock();
        try {
            byId.put(s.id(), s); // BUG: second index updated in a separate write-lock section: readers in between see the name without its id (idOf/snapshot throw), and an unregister in between leaves a stale byId entry forever
            return s;
        } finally {
            writeLock.unlock();
        }
    }

    /** Removes the service called {@code name}; returns it, or null if none. */
    public Service unregister(String name) {
        writeLock.lock();
        try {
            Service s = byName.remove(name);
            if (s != null) byId.remove(s.id());
            return s;
        } finally {
            writeLock.unlock();
        }
    }

    public Service lookup(String name) {
        readLock.lock();
        try {
            return byName.get(name);
        } finally {
            readLock.unlock();
        }
    }

    public Service lookupById(long id) {
        readLock.lock();
        try {
            return byId.get(id);
        } finally {
            readLock.unlock();
        }
    }

    /** Resolves a name to its id, checking that both indexes agree. */
    public long idOf(String name) {
        readLock.lock();
        try {
            Service s = byName.get(name);
            if (s == null) return -1;
            if (byId.get(s.id()) != s) throw new IllegalStateException("indexes disagree on " + s);
            return s.id();
        } finally {
            readLock.unlock();
        }
    }

    /** A consistent copy of all services, in no particular order. */
    public List<Service> snapshot() {
        readLock.lock();
        try {
            if (byName.size() != byId.size()) throw new IllegalStateException("indexes disagree");
            return new ArrayList<>(byName.values());
        } finally {
            readLock.unlock();
        }
    }

    public int size() {
        readLock.lock();
        try {
            return byName.size();
        } finally {
            readLock.unlock();
        }
    }
}
