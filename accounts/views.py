from django.contrib import messages
from django.contrib.auth import login
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from . import throttle
from .forms import SignUpForm
from .services import create_account
from .verification import confirm_email, pending_user, send_verification


@require_http_methods(["GET", "POST"])
def sign_up(request):
    """A new account waits, inactive, until its e-mail address is confirmed;
    at most `SIGNUP_MAX_PER_ADDRESS` accounts per client address and window."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        if refusal := throttle.signup_refusal(request):
            form.add_error(None, refusal)
            return render(
                request, "registration/signup.html", {"form": form}, status=429
            )
        if form.is_valid():
            user = create_account(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                email=form.cleaned_data["email"],
                institution=form.cleaned_data["institution"],
                role=form.cleaned_data["role"],
                verified=False,
            )
            throttle.count_signup(request)
            send_verification(user)
            return redirect("signup-sent")
    return render(request, "registration/signup.html", {"form": form})


@require_GET
def sign_up_sent(request):
    return render(request, "accounts/signup_sent.html")


@require_http_methods(["GET", "POST"])
def confirm(request, token: str):
    """GET: a button to confirm (a mail scanner fetching the link confirms
    nothing); POST: activate the account and sign it in."""
    user = pending_user(token)
    if user is None:
        return render(
            request, "accounts/confirm_email.html", {"invalid": True}, status=400
        )
    if request.method != "POST":
        return render(request, "accounts/confirm_email.html", {"pending": user})
    confirm_email(user)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, "Your e-mail address is confirmed; welcome.")
    return redirect("reviews:landing")  # the new account's role page
