package lazyinitbug;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A mail service whose (expensive) template engine is created on first use. */
public class LazyResource {

    static final AtomicInteger enginesCreated = new AtomicInteger();

    static final class TemplateEngine {
        private final Map<String, String> templates = new HashMap<>();

        TemplateEngine() {
            enginesCreated.incrementAndGet();
            for (int i = 0; i < 2_000; i++) { // simulate parsing the template directory
                templates.put("tpl" + i, "Dear {name}, this is message " + i);
            }
        }

        String render(String template, String name) {
            return templates.getOrDefault(template, "?").replace("{name}", name);
        }
    }

    private final AtomicReference<TemplateEngine> engine = new AtomicReference<>();

    TemplateEngine engine() {
        TemplateEngine e = engine.get();
        if (e == null) { // BUG: check that the engine is not yet created ...
            e = new TemplateEngine();
            engine.set(e); // BUG: ... then publish it in a separate atomic op; several threads create engines and overwrite each other's
        }
        return e;
    }

    String sendWelcome(String user) {
        return engine().render("tpl" + (user.length() % 10), user);
    }

    public static void main(String[] args) throws InterruptedException {
        final LazyResource mail = new LazyResource();
        final CountDownLatch start = new CountDownLatch(1);
        final AtomicInteger sent = new AtomicInteger();
        List<Thread> senders = new ArrayList<>();
        for (int s = 0; s < 8; s++) {
            final int id = s;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < 100; i++) {
                    if (!mail.sendWelcome("user" + id + "_" + i).isEmpty()) {
                        sent.incrementAndGet();
                    }
                }
            }, "sender-" + s);
            senders.add(t);
            t.start();
        }
        start.countDown();
        for (Thread t : senders) {
            t.join();
        }
        System.out.println("mails sent=" + sent.get() + " template engines created=" + enginesCreated.get());
    }
}
