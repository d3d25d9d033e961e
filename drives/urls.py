from django.urls import path

from drives import views

app_name = "drives"
urlpatterns = [
    path("", views.home, name="home"),
]
