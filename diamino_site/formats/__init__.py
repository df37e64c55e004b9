"""Date and time formats of the site's languages, where Django's own do not suit (``FORMAT_MODULE_PATH``)."""
