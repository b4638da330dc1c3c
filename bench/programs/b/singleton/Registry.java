package singleton;

import java.util.HashMap;
import java.util.Map;

/** Lazily initialised singleton with double-checked locking on a volatile field. */
public final class Registry {
    private static volatile Registry instance;

    private final Map<String, Integer> entries = new HashMap<>();

    private Registry() {
        entries.put("default", 0);
    }

    static Registry get() {
        Registry r = instance;
        if (r == null) {
            synchronized (Registry.class) {
                r = instance;
                if (r == null) {
                    r = new Registry();
                    instance = r;
                }
            }
        }
        return r;
    }

    synchronized int register(String name) {
        Integer id = entries.get(name);
        if (id == null) {
            id = entries.size();
            entries.put(name, id);
        }
        return id;
    }

    synchronized int size() { return entries.size(); }

    public static void main(String[] args) throws InterruptedException {
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            final int k = i;
            ts[i] = new Thread(() -> {
                for (int j = 0; j < 100; j++) Registry.get().register("n" + ((j + k) % 50));
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("entries " + Registry.get().size());
    }
}
