from django.contrib.auth import login
from django.shortcuts import redirect, render

from .forms import SignUpForm
from .services import create_account


def sign_up(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = create_account(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
            institution=form.cleaned_data["institution"],
            role=form.cleaned_data["role"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("reviews:landing")  # the new account's role page
    return render(request, "registration/signup.html", {"form": form})
