package listenerregbug;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BiConsumer;

/**
 * A topic-based registry of event listeners.
 *
 * <p>This class is thread-safe. Subscribing, unsubscribing, publishing and
 * closing may happen concurrently from any thread. Per-topic subscriber lists
 * are immutable and replaced under the write lock, so {@link #publish} only
 * holds the read lock long enough to grab the current list and then calls the
 * listeners without any lock held (listeners may therefore subscribe or
 * unsubscribe from their callbacks). A listener removed while an event is being
 * published may still receive that one event.
 *
 * <p>After {@link #close()} no new subscription is accepted, and every listener
 * that was subscribed at that moment receives exactly one
 * {@link TopicListener#onRegistryClosed()} callback.
 */
public final class SubscriptionRegistry<E> implements AutoCloseable {

    /** Handle of one subscription; closing it unsubscribes the listener. */
    public final class Subscription implements AutoCloseable {
        private final String topic;
        private final TopicListener<E> listener;
        private final AtomicBoolean active = new AtomicBoolean(true);

        private Subscription(String topic, TopicListener<E> listener) {
            this.topic = topic;
            this.listener = listener;
        }

        public String topic() {
            return topic;
        }

        public boolean isActive() {
            return active.get();
        }

        @Override
        public void close() {
            if (active.compareAndSet(true, false)) {
                removeSubscription(this);
            }
        }
    }

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, List<Subscription>> byTopic = new HashMap<>(); // guarded by lock
    private final BiConsumer<Subscription, RuntimeException> errorHandler;
    private volatile boolean closed; // written only under the write lock

    public SubscriptionRegistry(BiConsumer<Subscription, RuntimeException> errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    /** Registers {@code listener} for {@code topic}; fails if the registry is closed. */
    public Subscription subscribe(String topic, TopicListener<E> listener) {
        Subscription subscription = new Subscription(
                Objects.requireNonNull(topic, "topic"), Objects.requireNonNull(listener, "listener"));
        if (closed) { // BUG: closed is checked before taking the write lock and not re-checked; a close() that runs in between has already drained byTopic, so this subscription is added to a closed registry, never gets onRegistryClosed() and is leaked
            throw new IllegalStateException("registry is closed");
        }
        lock.writeLock().lock();
        try {
            List<Subscription> updated = new ArrayList<>(byTopic.getOrDefault(topic, List.of()));
            updated.add(subscription);
            byTopic.put(topic, List.copyOf(updated));
        } finally {
            lock.writeLock().unlock();
        }
        return subscription;
    }

    private void removeSubscription(Subscription subscription) {
        lock.writeLock().lock();
        try {
            List<Subscription> current = byTopic.get(subscription.topic);
            if (current == null) {
                return; // registry already closed, or nothing left on this topic
            }
            List<Subscription> updated = new ArrayList<>(current);
            updated.remove(subscription);
            if (updated.isEmpty()) {
                byTopic.remove(subscription.topic);
            } else {
                byTopic.put(subscription.topic, List.copyOf(updated));
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Delivers {@code event} to the current subscribers of {@code topic}; returns how many accepted it. */
    public int publish(String topic, E event) {
        List<Subscription> targets;
        lock.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("registry is closed");
            }
            targets = byTopic.getOrDefault(topic, List.of());
        } finally {
            lock.readLock().unlock();
        }
        int delivered = 0;
        for (Subscription subscription : targets) {
            try {
                subscription.listener.onEvent(topic, event);
                delivered++;
            } catch (RuntimeException e) {
                errorHandler.accept(subscription, e);
            }
        }
        return delivered;
    }

    public int subscriberCount(String topic) {
        lock.readLock().lock();
        try {
            return byTopic.getOrDefault(topic, List.of()).size();
        } finally {
            lock.readLock().unlock();
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** Closes the registry and notifies every listener still subscribed. Idempotent. */
    @Override
    public void close() {
        List<Subscription> remaining = new ArrayList<>();
        lock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            byTopic.values().forEach(remaining::addAll);
            byTopic.clear();
        } finally {
            lock.writeLock().unlock();
        }
        for (Subscription subscription : remaining) {
            if (subscription.active.compareAndSet(true, false)) {
                try {
                    subscription.listener.onRegistryClosed();
                } catch (RuntimeException e) {
                    errorHandler.accept(subscription, e);
                }
            }
        }
    }
}
