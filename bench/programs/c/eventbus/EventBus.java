package eventbus;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * Topic-based event bus. Listener lists are CopyOnWriteArrayLists created on
 * demand with computeIfAbsent; publishing iterates an immutable snapshot, so
 * (un)subscribing while events are in flight is safe.
 */
final class EventBus {
    private final ConcurrentHashMap<String, CopyOnWriteArrayList<Listener>> listeners =
            new ConcurrentHashMap<>();
    private final LongAdder delivered = new LongAdder();
    private final LongAdder deadEvents = new LongAdder();

    void subscribe(String topic, Listener l) {
        listeners.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>()).addIfAbsent(l);
    }

    void unsubscribe(String topic, Listener l) {
        listeners.computeIfPresent(topic, (t, list) -> {
            list.remove(l);
            return list;
        });
    }

    void publish(Event e) {
        List<Listener> subscribers = listeners.get(e.topic);
        boolean anyone = false;
        if (subscribers != null) {
            for (Listener l : subscribers) { // iterates a snapshot
                anyone = true;
                try {
                    l.onEvent(e);
                    delivered.increment();
                } catch (RuntimeException ex) {
                    // a faulty listener must not break the publisher
                }
            }
        }
        if (!anyone) {
            deadEvents.increment();
        }
    }

    long delivered() {
        return delivered.sum();
    }

    long deadEvents() {
        return deadEvents.sum();
    }
}
