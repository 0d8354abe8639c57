"""The table's rolls posted to Discord (issue 46; docs/discord.md): the GM's webhooks
(``webhooks``), the poster woken when an entry commits (``wake``), the task that posts what a
webhook may see in order and once (``flush``, ``tasks``), what a post says (``embeds``) and how
it is sent (``client``)."""
