"""The schema of what the case-characteristics API answers (read only)."""

from rest_framework import serializers

from analysis.serializers import RunFieldsSerializer


class ColumnSerializer(serializers.Serializer):
    """`casemodels.metadata.ColumnInfo.to_dict`."""

    name = serializers.CharField()
    kind = serializers.CharField()
    levels = serializers.ListField(child=serializers.JSONField(), allow_null=True)
    distinct_values = serializers.IntegerField()
    empty_cells = serializers.IntegerField()


class MetadataPreviewSerializer(serializers.Serializer):
    """200 without ``commit``: the contract's checks of the table
    (`casemodels.metadata.MetadataReport.to_dict`); nothing is stored."""

    rows = serializers.IntegerField()
    columns = ColumnSerializer(many=True)
    metadata_without_results = serializers.ListField(child=serializers.CharField())
    metadata_without_results_count = serializers.IntegerField()
    cases_without_metadata = serializers.ListField(child=serializers.CharField())
    cases_without_metadata_count = serializers.IntegerField()
    rows_with_empty_cells = serializers.IntegerField()
    one_level_columns = serializers.ListField(child=serializers.CharField())


class MetadataVersionSerializer(serializers.Serializer):
    """`characteristics.api._version_data`."""

    id = serializers.IntegerField()
    results = serializers.IntegerField()
    version = serializers.IntegerField()
    sha256 = serializers.CharField()
    rows = serializers.IntegerField()
    original_name = serializers.CharField()
    checks = MetadataPreviewSerializer()
    created = serializers.DateTimeField()


class CaseModelAcceptedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    exploratory = serializers.BooleanField()


class CaseModelRunSerializer(RunFieldsSerializer):
    """`characteristics.api._run_data`."""

    metadata = serializers.IntegerField()
    exploratory = serializers.BooleanField()
    announcement = serializers.CharField(allow_blank=True)
    spec = serializers.DictField(child=serializers.JSONField())
