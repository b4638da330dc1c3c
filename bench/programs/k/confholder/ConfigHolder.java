package confholder;

import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Holds the live database settings. A reload replaces all settings at once
 * under the write lock; readers that need several settings together must take
 * them from one {@link Snapshot}.
 */
public final class ConfigHolder {
    public record Snapshot(long version, String dbHost, int dbPort, int poolSize) {}

    public interface Listener {
        void onReload(ConfigHolder source);
    }

    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();
    private long version;    // guarded by rw
    private String dbHost;   // guarded by rw
    private int dbPort;      // guarded by rw
    private int poolSize;    // guarded by rw

    public ConfigHolder(Properties initial) {
        apply(initial);
    }

    public void addListener(Listener l) {
        listeners.add(l);
    }

    /** Parses and installs new settings, then notifies listeners outside the lock. */
    public void reload(Properties p) {
        apply(p);
        for (Listener l : listeners) {
            l.onReload(this);
        }
    }

    private void apply(Properties p) {
        String host = p.getProperty("db.host", "localhost");
        int port = Integer.parseInt(p.getProperty("db.port", "5432"));
        int size = Integer.parseInt(p.getProperty("db.pool.size", "8"));
        if (port <= 0 || port > 65535 || size <= 0) {
            throw new IllegalArgumentException("invalid db settings: " + p);
        }
        rw.writeLock().lock();
        try {
            dbHost = host;
            dbPort = port;
            poolSize = size;
            version++;
        } finally {
            rw.writeLock().unlock();
        }
    }

    public Snapshot snapshot() {
        rw.readLock().lock();
        try {
            return new Snapshot(version, dbHost, dbPort, poolSize);
        } finally {
            rw.readLock().unlock();
        }
    }

    public long version() {
        rw.readLock().lock();
        try {
            return version;
        } finally {
            rw.readLock().unlock();
        }
    }

    public String dbHost() {
        rw.readLock().lock();
        try {
            return dbHost;
        } finally {
            rw.readLock().unlock();
        }
    }

    public int dbPort() {
        rw.readLock().lock();
        try {
            return dbPort;
        } finally {
            rw.readLock().unlock();
        }
    }

    public int poolSize() {
        rw.readLock().lock();
        try {
            return poolSize;
        } finally {
            rw.readLock().unlock();
        }
    }
}
