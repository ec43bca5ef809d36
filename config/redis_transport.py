"""kombu's Redis transport, with late acknowledgements that outlive a lost
broker connection.

With ``acks_late`` a job is acknowledged when it ends. When Redis goes away
while a job runs, the worker closes the channel the job's message came on and
reconnects (``CELERY_BROKER_CONNECTION_MAX_RETRIES = None``); the job then
ends and acknowledges on the closed channel, whose connection is gone, and
kombu raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``
— an "Unrecoverable error" that stops the whole worker. Here that
acknowledgement is skipped instead: the message stays in Redis's unacked
index and comes back after the visibility timeout (or was put back when the
channel closed), and a job that arrives after its run finished does nothing
(``analysis.run_state.claim``).

Used for redis:// and rediss:// broker URLs (``CELERY_BROKER_TRANSPORT``).
"""

from __future__ import annotations

import logging

from kombu.transport import redis

logger = logging.getLogger(__name__)


def _connection_lost(channel: redis.Channel) -> bool:
    """The channel was closed with its connection (its transport, or the
    transport's client, is gone): nothing can reach Redis through it."""
    transport = channel.connection
    return transport is None or transport.client is None


class QoS(redis.QoS):
    def _channel_closed(self, what: str, delivery_tag) -> bool:
        if not _connection_lost(self.channel):
            return False
        logger.warning(
            "broker connection lost: %s of message %s skipped; Redis keeps it "
            "unacknowledged and delivers it again after the visibility timeout",
            what,
            delivery_tag,
        )
        return True

    def ack(self, delivery_tag) -> None:
        if not self._channel_closed("acknowledgement", delivery_tag):
            super().ack(delivery_tag)

    def reject(self, delivery_tag, requeue: bool = False) -> None:
        if not self._channel_closed("rejection", delivery_tag):
            super().reject(delivery_tag, requeue=requeue)

    def restore_unacked(self, client=None):
        if _connection_lost(self.channel):  # nothing to restore them through
            self._delivered.clear()
            return None
        return super().restore_unacked(client)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel
